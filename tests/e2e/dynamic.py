#!/usr/bin/python3
"""dynamic.py OUTDIR - writes the models of tests/parts/40-dynamic.sh.

Ops whose output shapes depend on input values (issue 40): NonZero, Unique,
Compress, NonMaxSuppression, as onnx.helper graphs (opset 13) on seeded
random inputs. Each case is OUTDIR/NAME.onnx with inputs OUTDIR/NAME.in0.pb,
... and a line in OUTDIR/cases.txt: `NAME N_INPUTS N_OUTPUTS MODE`:
  run     `paleozoic run` and a built program give ONNX Runtime's outputs
          bitwise (type, the run-time shape, bytes); where numpy computes the
          op (NonZero, Unique, Compress) its result is written too, as
          OUTDIR/NAME.np0.pb, ..., and must agree as well
  cli     the same through `paleozoic run` only (builds take the time)
  refuse  `paleozoic run` and `paleozoic build` exit 2 naming the node that
          reads a run-time-shaped value
A sixth word `close`: floats to a tolerance (compare.js --close 1e-5 1e-6).
Dynamic regions: element-wise unary and binary ops, Cast, Transpose and
GatherND after a run-time shape (region_*) run at it (Abs: exact, so the
bitwise comparison holds), Shape gives its run-time values to static ops
(Gather, Mul), a Reshape to two dims of one runs (RESHAPE), so does one of a
ReduceSum to a constant [12]; a Pad after one
is refused
(dynamic_torch.py: the post-processing PyTorch exports).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
cases = []
rng = np.random.default_rng(40)


def write(path, x, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(x, name).SerializeToString())


def save(name, nodes, ins, outs, inputs, n_out, mode, inits=(), refs=None, opset=13, tol=""):
    g = helper.make_graph(nodes, name, ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7 if opset < 17 else 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name + ".onnx"))
    for k, x in enumerate(inputs):
        write(os.path.join(out, "%s.in%d.pb" % (name, k)), x, "in%d" % k)
    for k, x in enumerate(refs or []):
        if x is not None:   # None: no numpy reference for that output
            write(os.path.join(out, "%s.np%d.pb" % (name, k)), x, "np%d" % k)
    cases.append(("%s %d %d %s %d " % (name, len(inputs), n_out, mode, len(refs or [])) + tol).strip())


def vi(name, dt, shape):
    """shape: the dims, or a rank (symbolic dims: the shape is the run's)"""
    if isinstance(shape, int):
        shape = ["%s_%d" % (name, d) for d in range(shape)]
    return helper.make_tensor_value_info(name, dt, shape)


# ---- NonZero -----------------------------------------------------------------
x = rng.standard_normal((3, 4, 5)).astype(np.float32)
x[rng.random(x.shape) < 0.5] = 0
save("nonzero_f32", [helper.make_node("NonZero", ["X"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [3, 4, 5])], [vi("Y", TensorProto.INT64, 2)],
     [x], 1, "run", refs=[np.array(np.nonzero(x), np.int64)])
b = rng.random((6, 7)) < 0.3
save("nonzero_bool", [helper.make_node("NonZero", ["X"], ["Y"])],
     [vi("X", TensorProto.BOOL, [6, 7])], [vi("Y", TensorProto.INT64, 2)],
     [b], 1, "cli", refs=[np.array(np.nonzero(b), np.int64)])
z = np.zeros((4, 3), np.int32)
save("nonzero_none", [helper.make_node("NonZero", ["X"], ["Y"])],
     [vi("X", TensorProto.INT32, [4, 3])], [vi("Y", TensorProto.INT64, 2)],
     [z], 1, "cli", refs=[np.zeros((2, 0), np.int64)])
# NonZero of a constant folds at compile time: its result is a static shape
# that the Add after it can use
c = np.array([[0, 3, 0], [5, 0, 7]], np.float32)
save("nonzero_const", [helper.make_node("NonZero", ["C"], ["I"]),
                       helper.make_node("Cast", ["I"], ["F"], to=TensorProto.FLOAT),
                       helper.make_node("Add", ["F", "X"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [2, 3])], [vi("Y", TensorProto.FLOAT, [2, 3])],
     [rng.standard_normal((2, 3)).astype(np.float32)], 1, "run",
     inits=[numpy_helper.from_array(c, "C")])


# ---- Unique ------------------------------------------------------------------
def unique_ref(x, axis, sorted_):
    y, idx, inv, cnt = np.unique(x, True, True, True, axis=axis)
    if not sorted_:
        order = np.argsort(idx, kind="stable")
        pos = np.empty_like(order)
        pos[order] = np.arange(len(order))
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], pos[inv]
    return [y, idx.astype(np.int64), inv.reshape(-1).astype(np.int64), cnt.astype(np.int64)]


def unique_case(name, x, dt, axis, sorted_, mode="cli"):
    attrs = {"sorted": sorted_}
    if axis is not None:
        attrs["axis"] = axis
    save(name, [helper.make_node("Unique", ["X"], ["Y", "I", "V", "C"], **attrs)],
         [vi("X", dt, list(x.shape))],
         [vi("Y", dt, x.ndim if axis is not None else 1), vi("I", TensorProto.INT64, 1),
          vi("V", TensorProto.INT64, 1), vi("C", TensorProto.INT64, 1)],
         [x], 4, mode, refs=unique_ref(x, axis, sorted_))


unique_case("unique_sorted", rng.integers(-5, 5, (30,)).astype(np.int64), TensorProto.INT64,
            None, 1)
unique_case("unique_unsorted", rng.choice([0.5, -1.25, 3.0, 7.5, 2.0], (5, 8)).astype(np.float32),
            TensorProto.FLOAT, None, 0, "run")
rows = rng.integers(0, 3, (4, 3)).astype(np.int32)
unique_case("unique_axis0", rows[rng.integers(0, 4, 9)].astype(np.int64), TensorProto.INT64, 0, 1)
cols = rng.choice([1.0, 2.0], (2, 3, 2)).astype(np.float32)
unique_case("unique_axis1", cols[:, rng.integers(0, 3, 7), :], TensorProto.FLOAT, 1, 1, "run")
unique_case("unique_axis_neg", rng.integers(0, 2, (3, 6)).astype(np.int64), TensorProto.INT64,
            -1, 1)


# ---- Compress ----------------------------------------------------------------
x = rng.standard_normal((5, 4)).astype(np.float32)
cond = rng.random(5) < 0.5
save("compress_axis0", [helper.make_node("Compress", ["X", "B"], ["Y"], axis=0)],
     [vi("X", TensorProto.FLOAT, [5, 4]), vi("B", TensorProto.BOOL, [5])],
     [vi("Y", TensorProto.FLOAT, 2)], [x, cond], 1, "run",
     refs=[np.compress(cond, x, axis=0)])
cond = rng.random(13) < 0.5
save("compress_flat", [helper.make_node("Compress", ["X", "B"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [5, 4]), vi("B", TensorProto.BOOL, [13])],
     [vi("Y", TensorProto.FLOAT, 1)], [x, cond], 1, "cli", refs=[np.compress(cond, x)])
x3 = rng.integers(-9, 9, (2, 6, 3)).astype(np.int64)
cond = np.array([1, 0, 1, 1, 0, 1], bool)
save("compress_const", [helper.make_node("Compress", ["X", "B"], ["Y"], axis=-2)],
     [vi("X", TensorProto.INT64, [2, 6, 3])], [vi("Y", TensorProto.INT64, [2, 4, 3])], [x3], 1,
     "cli", inits=[numpy_helper.from_array(cond, "B")], refs=[np.compress(cond, x3, axis=1)])


# ---- NonMaxSuppression -------------------------------------------------------
def boxes(nb, n, center):
    xy = rng.random((nb, n, 2)).astype(np.float32) * 10
    wh = rng.random((nb, n, 2)).astype(np.float32) * 4 + 0.5
    if center:
        return np.concatenate([xy, wh], axis=2)
    b = np.concatenate([xy, xy + wh], axis=2)
    flip = rng.random((nb, n)) < 0.3   # corners in either order
    b[flip] = b[flip][:, [2, 3, 0, 1]]
    return b


def nms_case(name, nb, nc, n, max_out, iou, score, center, mode="run"):
    inits = [numpy_helper.from_array(np.array([max_out], np.int64), "M")]
    names = ["BX", "SC", "M", "IOU"]
    ins = [vi("BX", TensorProto.FLOAT, [nb, n, 4]), vi("SC", TensorProto.FLOAT, [nb, nc, n]),
           vi("IOU", TensorProto.FLOAT, [1])]
    data = [boxes(nb, n, center), rng.random((nb, nc, n)).astype(np.float32),
            np.array([iou], np.float32)]
    if score is not None:
        names.append("ST")
        ins.append(vi("ST", TensorProto.FLOAT, [1]))
        data.append(np.array([score], np.float32))
    save(name, [helper.make_node("NonMaxSuppression", names, ["S"], center_point_box=center)],
         ins, [vi("S", TensorProto.INT64, 2)], data, 1, mode, inits=inits)


nms_case("nms_corners", 2, 3, 40, 6, 0.4, 0.2, 0)
nms_case("nms_center", 1, 2, 60, 10, 0.3, None, 1, "cli")
nms_case("nms_tight", 3, 1, 25, 3, 0.7, 0.9, 0, "cli")


# ---- dynamic regions: element-wise unary ops and Cast after a run-time shape ----
x = rng.standard_normal((3, 4)).astype(np.float32)
x[rng.random(x.shape) < 0.4] = 0
save("region_cast_neg", [helper.make_node("NonZero", ["X"], ["I"]),
                         helper.make_node("Cast", ["I"], ["F"], to=TensorProto.FLOAT),
                         helper.make_node("Neg", ["F"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [3, 4])], [vi("Y", TensorProto.FLOAT, 2)], [x], 1, "run",
     refs=[-np.array(np.nonzero(x), np.float32)])
u = rng.choice([0.5, -1.0, 2.0, 3.5], (12,)).astype(np.float32)
ref = unique_ref(u, None, 1)
save("region_unique_abs", [helper.make_node("Unique", ["X"], ["U", "", "", "C"]),
                               helper.make_node("Abs", ["U"], ["A"]),
                               helper.make_node("Identity", ["A"], ["Y"]),
                               helper.make_node("Cast", ["C"], ["Z"], to=TensorProto.INT32)],
     [vi("X", TensorProto.FLOAT, [12])],
     [vi("Y", TensorProto.FLOAT, 1), vi("Z", TensorProto.INT32, 1)], [u], 2, "run",
     refs=[np.abs(ref[0]), ref[3].astype(np.int32)])

# Shape of a run-time shape: its values are the run's (the count of nonzeros)
save("region_shape_count", [helper.make_node("NonZero", ["X"], ["I"]),
                            helper.make_node("Shape", ["I"], ["S"]),
                            helper.make_node("Gather", ["S", "one"], ["N"], axis=0),
                            helper.make_node("Mul", ["N", "N"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [3, 4])],
     [vi("Y", TensorProto.INT64, []), vi("S", TensorProto.INT64, [2])], [x], 2, "run",
     inits=[numpy_helper.from_array(np.array(1, np.int64), "one")],
     refs=[np.array(np.count_nonzero(x) ** 2, np.int64), np.array([2, np.count_nonzero(x)], np.int64)])

# binary ops, Transpose and GatherND in a region: what torch.nonzero(x) and
# x[x > t] * 2 export (NonZero, Transpose, GatherND, Mul), a broadcast Add
# of a static [2, 1], and Unique's values added to themselves
x = rng.standard_normal((4, 5)).astype(np.float32)
save("region_mask_select", [helper.make_node("Greater", ["X", "t"], ["B"]),
                            helper.make_node("NonZero", ["B"], ["I"]),
                            helper.make_node("Transpose", ["I"], ["IT"], perm=[1, 0]),
                            helper.make_node("GatherND", ["X", "IT"], ["G"]),
                            helper.make_node("Mul", ["G", "two"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [4, 5])],
     [vi("Y", TensorProto.FLOAT, 1), vi("IT", TensorProto.INT64, 2)], [x], 2, "run",
     inits=[numpy_helper.from_array(np.array(0.3, np.float32), "t"),
            numpy_helper.from_array(np.array([2.0], np.float32), "two")],
     refs=[x[x > np.float32(0.3)] * np.float32(2), np.array(np.nonzero(x > 0.3), np.int64).T])
save("region_add_broadcast", [helper.make_node("NonZero", ["X"], ["I"]),
                              helper.make_node("Add", ["I", "off"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [3, 4])], [vi("Y", TensorProto.INT64, 2)], [x[:3, :4]], 1, "run",
     inits=[numpy_helper.from_array(np.array([[10], [20]], np.int64), "off")],
     refs=[np.array(np.nonzero(x[:3, :4]), np.int64) + np.array([[10], [20]], np.int64)])
u = rng.choice([0.5, -1.0, 2.0, 3.5], (9,)).astype(np.float32)
save("region_unique_add", [helper.make_node("Unique", ["X"], ["U"]),
                           helper.make_node("Add", ["U", "U"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [9])], [vi("Y", TensorProto.FLOAT, 1)], [u], 1, "cli",
     refs=[unique_ref(u, None, 1)[0] * 2])

# a reshape of a run-time shape to [-1, 2]: the shape resolved at run time
xr = rng.standard_normal((3, 4)).astype(np.float32)
save("region_reshape", [helper.make_node("NonZero", ["X"], ["I"]),
                        helper.make_node("Reshape", ["I", "pairs"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [3, 4])], [vi("Y", TensorProto.INT64, 2)],
     [xr], 1, "run",
     inits=[numpy_helper.from_array(np.array([-1, 2], np.int64), "pairs")],
     refs=[np.array(np.nonzero(xr), np.int64).reshape(-1, 2)])

# a Reshape to a constant [12] of a run-time-shaped ReduceSum (rows kept by
# a mask, summed over them): RESHAPE checks the run's count against it
# (integer values: the sums are exact, so bitwise)
xs = rng.integers(-4, 5, (6, 4, 3)).astype(np.float32)
keep = np.array([1, 0, 1, 1, 0, 1], bool)
save("region_reduce_reshape", [helper.make_node("Compress", ["X", "K"], ["C"], axis=0),
                               helper.make_node("ReduceSum", ["C", "ax"], ["S"], keepdims=0),
                               helper.make_node("Reshape", ["S", "twelve"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [6, 4, 3]), vi("K", TensorProto.BOOL, [6])],
     [vi("Y", TensorProto.FLOAT, 1)], [xs, keep], 1, "run",
     inits=[numpy_helper.from_array(np.array([0], np.int64), "ax"),
            numpy_helper.from_array(np.array([12], np.int64), "twelve")],
     refs=[xs[keep].sum(0).reshape(12)])

# Flatten of a run-time-shaped value: its two products taken at run time
xu = rng.standard_normal(8).astype(np.float32)
save("region_unique_flatten", [helper.make_node("Unique", ["X"], ["U"]),
                               helper.make_node("Flatten", ["U"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [8])], [vi("Y", TensorProto.FLOAT, 2)],
     [xu], 1, "run", refs=[np.unique(xu).reshape(-1, 1)])

# Concat along axis 0 of a value compressed along axis 1 (planned at its
# bound, 6) and a static [2, 3, 2]: the run's dims agree off the axis
xc = rng.integers(-4, 5, (3, 6, 2)).astype(np.float32)
kc = np.array([0, 1, 1, 0, 1, 0], bool)
sc = rng.integers(-4, 5, (2, 3, 2)).astype(np.float32)
save("region_compress_concat", [helper.make_node("Compress", ["X", "K"], ["C"], axis=1),
                                helper.make_node("Concat", ["C", "S"], ["Y"], axis=0)],
     [vi("X", TensorProto.FLOAT, [3, 6, 2]), vi("K", TensorProto.BOOL, [6]),
      vi("S", TensorProto.FLOAT, [2, 3, 2])],
     [vi("Y", TensorProto.FLOAT, 3)], [xc, kc, sc], 1, "run",
     refs=[np.concatenate([xc[:, kc], sc], 0)])

# MatMul whose inner dim K is the run's (compressed to 3 of a bound of 6)
# by a constant W [3, 4]: the compile-time plan takes W's K, the run checks
xm = rng.integers(-4, 5, (2, 6)).astype(np.float32)
km = np.array([1, 0, 0, 1, 1, 0], bool)
wm = rng.integers(-3, 4, (3, 4)).astype(np.float32)
save("region_compress_matmul_k", [helper.make_node("Compress", ["X", "K"], ["C"], axis=1),
                                  helper.make_node("MatMul", ["C", "W"], ["Y"])],
     [vi("X", TensorProto.FLOAT, [2, 6]), vi("K", TensorProto.BOOL, [6])],
     [vi("Y", TensorProto.FLOAT, 2)], [xm, km], 1, "run",
     inits=[numpy_helper.from_array(wm, "W")], refs=[xm[:, km] @ wm])

# pools and LayerNormalization of a run-time dim moved off axis 0 (to C;
# kept rows of X then rows 1 of Transpose): the reference pool at the run's
# N and C; the layer norm's rows the run's (ONNX Runtime's outputs only)
xp = rng.standard_normal((6, 3, 5, 4)).astype(np.float32)
kp = np.array([1, 0, 1, 1, 0, 1], bool)
save("region_transpose_pools", [helper.make_node("Compress", ["X", "K"], ["C"], axis=0),
                                helper.make_node("Transpose", ["C"], ["P"], perm=[1, 0, 2, 3]),
                                helper.make_node("MaxPool", ["P"], ["Y"], kernel_shape=[2, 2],
                                                 pads=[0, 1, 1, 0], strides=[2, 1]),
                                helper.make_node("AveragePool", ["P"], ["Z"], kernel_shape=[3, 2],
                                                 ceil_mode=1, strides=[2, 2]),
                                helper.make_node("GlobalMaxPool", ["P"], ["G"])],
     [vi("X", TensorProto.FLOAT, [6, 3, 5, 4]), vi("K", TensorProto.BOOL, [6])],
     [vi("Y", TensorProto.FLOAT, 4), vi("Z", TensorProto.FLOAT, 4), vi("G", TensorProto.FLOAT, 4)],
     [xp, kp], 3, "run", tol="close",
     refs=[None, None, xp[kp].transpose(1, 0, 2, 3).max((2, 3), keepdims=True)])
xl = rng.standard_normal((6, 2, 5)).astype(np.float32)
save("region_transpose_layernorm",
     [helper.make_node("Compress", ["X", "K"], ["C"], axis=0),
      helper.make_node("Transpose", ["C"], ["P"], perm=[1, 0, 2]),
      helper.make_node("LayerNormalization", ["P", "S", "B"], ["Y", "M", "I"], axis=-1)],
     [vi("X", TensorProto.FLOAT, [6, 2, 5]), vi("K", TensorProto.BOOL, [6])],
     [vi("Y", TensorProto.FLOAT, 3), vi("M", TensorProto.FLOAT, 3), vi("I", TensorProto.FLOAT, 3)],
     [xl, kp], 3, "run", opset=17, tol="close",
     inits=[numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "S"),
            numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "B")])

# ---- refused: a node reading a run-time-shaped value --------------------------
# (Pad and Flatten run there; LpNormalization does not)
save("refuse_unique_lpnorm", [helper.make_node("Unique", ["X"], ["U"]),
                              helper.make_node("Unsqueeze", ["U", "z"], ["V"]),
                              helper.make_node("LpNormalization", ["V"], ["Y"], axis=1)],
     [vi("X", TensorProto.FLOAT, [8])], [vi("Y", TensorProto.FLOAT, 2)],
     [rng.standard_normal(8).astype(np.float32)], 1, "refuse",
     inits=[numpy_helper.from_array(np.array([0], np.int64), "z")])

with open(os.path.join(out, "cases.txt"), "w") as f:
    f.write("\n".join(cases) + "\n")
