#!/usr/bin/python3
"""runtime_shapes_onnx.py OUTDIR - hand-written ONNX models whose output
shapes come from a graph input read at run time, for
tests/parts/39-runtime-shapes.sh (issue 39), run by the part
against ONNX Runtime 1.17 (tests/e2e/ort_run.js).

Each model is written with its inputs for several run-time values:
OUTDIR/NAME.onnx, NAME.vV.inK.pb. A line per model is appended to
OUTDIR/cases.txt: `NAME N_INPUTS N_OUTPUTS N_VALUES`.
  split     Split of X [4, 6] along axis 1 by sizes s [3] (opset 13), the
            middle part then times 2 (a dynamic region after it)
  onehot    OneHot of indices [3, 2] by a depth scalar (axis 1), then + 1
            (no compile-time bound: the net allocates Y)
  onehotf   OneHot with a float depth [1] (truncated), int32 indices,
            axis -1
  fan70     Split of X [140] into 7 parts by sizes s [7], each part
            through 10 element-wise ops: 70 outputs, 70 --output files (the
            part runs it through `paleozoic run` too)
  crop      CenterCropPad of X [2, 5, 7] to shape [2] over axes [2, 1]
            (given out of order: shape[0] sizes axis 2), then negated
  detect    torchvision's detector tail on the boxes whose score passes 0.3
            (NonZero -> Gather, a run-time count K): Flatten(boxes, 0) to
            [1, 4K]; a Reshape to [Shape[0], Shape[1]] (traced to its bound
            [8, 4]) concatenated with the boxes; NonMaxSuppression over them
            (K = 8, 3, 0 and 1)
  ifnms     torchvision's batched_nms: If(len(boxes) == 0) with a
            run-time condition, then an empty int64 [0], else NMS over the
            boxes offset per label (times ConstantOfShape(Shape(labels)) of
            twos, planned at a bound) (branches of different shapes: the
            tensor chosen at run time); kept boxes gathered after it
            (6, 0, 3, 0, 1 and 8 boxes passing)
  split42   the passing boxes [K, 4] Split by constant sizes [1, 1, 2]
            along axis 1 (a run-time shape), the parts joined by one
            Concat of 42 inputs (K = 6, 0 and 8)
  roihead   Faster R-CNN's RoI head on the passing boxes (K = 8, 1, 5, 0):
            If(Shape(col)[1] == 1) folded (a dim fixed at every run), Size
            of the run-time rois, RoiAlign, Gemm, ScatterElements, Expand
            to a Shape of a bounded tensor
  roiconv   Mask R-CNN's mask head on K of 8 feature maps picked by
            NonZero: Conv + Relu, a strided Conv, ConvTranspose, a 1x1
            Conv, each at the run's K images (K = 3, 0, 1, 8, 2)
  roiwino   the same picking, of maps [32, 16, 16] into a 3x3 32 -> 32
            Conv + Relu that takes Winograd at the plan, of sequences
            [16, 20] into a Conv1d 16 -> 24 (kernel 3, pad 1: conv_frames)
            and of volumes [8, 3, 4, 4] into a ConvTranspose3d 8 -> 4
            (kernel 2, stride 2: deconv_frames) (K = 3, 0, 1, 8)
The values grow and shrink again (the buffers regrow). Bad values, each
a program exit 2 naming the layer with no output written, as
NAME.bad.inK.pb (K the input replaced): split sizes adding up to 7 and a
negative one (split.bad2), depth 0 (onehot), a negative crop size (crop)
and a chunk size of 0 (seqsplit).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper


def save(path, arr):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(arr)).SerializeToString())


def model(nodes, inputs, outputs, opset, inits=()):
    g = h.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    if opset <= onnx.defs.onnx_opset_version():   # this onnx may predate the op
        onnx.checker.check_model(m)
    return m


def case(out, name, m, values, nout):
    onnx.save(m, os.path.join(out, name + ".onnx"))
    for v, ins in enumerate(values):
        for k, t in enumerate(ins):
            save(os.path.join(out, "%s.v%d.in%d.pb" % (name, v, k)), t)
    with open(os.path.join(out, "cases.txt"), "a") as f:
        f.write("%s %d %d %d\n" % (name, len(values[0]), nout, len(values)))


def vi(name, dt, shape):
    """A value's type; shape an int (the rank) for dims named at run time."""
    if isinstance(shape, int):
        shape = ["%s_%d" % (name, k) for k in range(shape)]
    return h.make_tensor_value_info(name, dt, shape)


def roi_pick():
    """Maps f: the rows of x whose score s passes 0 (NonZero: idx, K of them)."""
    return [h.make_node("Greater", ["s", "zero"], ["pass"]),
            h.make_node("NonZero", ["pass"], ["nz"]),
            h.make_node("Squeeze", ["nz", "ax0"], ["idx"]),
            h.make_node("Gather", ["x", "idx"], ["f"], axis=0)]


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(39)
    i64 = np.int64

    x = rng.standard_normal((4, 6)).astype(np.float32)
    two = numpy_helper.from_array(np.array(2, dtype=np.float32), "two")
    m = model([h.make_node("Split", ["x", "s"], ["a", "b", "c"], axis=1),
               h.make_node("Mul", ["b", "two"], ["b2"])],
              [vi("x", TP.FLOAT, [4, 6]), vi("s", TP.INT64, [3])],
              [vi("a", TP.FLOAT, 2), vi("b2", TP.FLOAT, 2), vi("c", TP.FLOAT, 2)], 13, [two])
    case(out, "split", m, [[x, np.array(s, i64)] for s in
                           ([1, 2, 3], [0, 6, 0], [2, 2, 2], [6, 0, 0], [3, 3, 0])], 3)
    save(os.path.join(out, "split.bad.in1.pb"), np.array([2, 2, 3], i64))
    save(os.path.join(out, "split2.bad.in1.pb"), np.array([-1, 4, 3], i64))

    parts = ["p%d" % k for k in range(7)]
    ops = ["Neg", "Abs", "Relu", "Floor", "Ceil", "Sign", "Identity", "Round", "Sin", "Cos"]
    nodes = [h.make_node("Split", ["x", "s"], parts, axis=0)]
    outs = []
    for p in parts:
        for op in ops:
            outs.append("%s_%s" % (p, op))
            nodes.append(h.make_node(op, [p], [outs[-1]]))
    m = model(nodes, [vi("x", TP.FLOAT, [140]), vi("s", TP.INT64, [7])],
              [vi(y, TP.FLOAT, 1) for y in outs], 13)
    x70 = (rng.standard_normal(140) * 3).astype(np.float32)
    case(out, "fan70", m, [[x70, np.full(7, 20, i64)], [x70, np.array([0, 1, 50, 2, 80, 0, 7], i64)]],
         70)

    ind = np.array([[0, 2], [-1, 1], [4, 7]], i64)
    one = numpy_helper.from_array(np.array(1, dtype=np.float32), "one")
    m = model([h.make_node("OneHot", ["i", "d", "v"], ["y"], axis=1),
               h.make_node("Add", ["y", "one"], ["z"])],
              [vi("i", TP.INT64, [3, 2]), vi("d", TP.INT64, []), vi("v", TP.FLOAT, [2])],
              [vi("z", TP.FLOAT, 3)], 11, [one])
    vals = np.array([-0.5, 3.0], np.float32)
    case(out, "onehot", m, [[ind, np.array(d, i64), vals] for d in (3, 10, 1, 5)], 1)
    save(os.path.join(out, "onehot.bad.in1.pb"), np.array(0, i64))

    m = model([h.make_node("OneHot", ["i", "d", "v"], ["y"], axis=-1)],
              [vi("i", TP.INT32, [2, 3]), vi("d", TP.FLOAT, [1]), vi("v", TP.FLOAT, [2])],
              [vi("y", TP.FLOAT, 3)], 11)
    ind32 = np.array([[0, 1, 2], [3, -2, 9]], np.int32)
    case(out, "onehotf", m, [[ind32, np.array([d], np.float32), np.array([0, 7], np.float32)]
                             for d in (4.7, 2.0, 12.2)], 1)

    xc = rng.standard_normal((2, 5, 7)).astype(np.float32)
    m = model([h.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[2, 1]),
               h.make_node("Neg", ["y"], ["z"])],
              [vi("x", TP.FLOAT, [2, 5, 7]), vi("s", TP.INT64, [2])],
              [vi("z", TP.FLOAT, 3)], 18)
    case(out, "crop", m, [[xc, np.array(s, i64)] for s in
                          ([3, 4], [9, 8], [7, 5], [4, 10], [0, 1])], 1)
    save(os.path.join(out, "crop.bad.in1.pb"), np.array([3, -1], i64))

    consts = [numpy_helper.from_array(np.array(v, dtype=t), nm) for nm, v, t in
              (("th", 0.3, np.float32), ("z1", [0], i64), ("i0", 0, i64), ("i1", 1, i64),
               ("z01", [0, 1], i64), ("mo", [3], i64), ("iou", [0.5], np.float32))]
    m = model([h.make_node("Greater", ["sc", "th"], ["pass"]),
               h.make_node("NonZero", ["pass"], ["nz"]),
               h.make_node("Squeeze", ["nz", "z1"], ["idx"]),
               h.make_node("Gather", ["bx", "idx"], ["b"], axis=0),
               h.make_node("Gather", ["sc", "idx"], ["s"], axis=0),
               h.make_node("Flatten", ["b"], ["flat"], axis=0),
               h.make_node("Shape", ["b"], ["shp"]),
               h.make_node("Gather", ["shp", "i0"], ["d0"], axis=0),
               h.make_node("Gather", ["shp", "i1"], ["d1"], axis=0),
               h.make_node("Unsqueeze", ["d0", "z1"], ["u0"]),
               h.make_node("Unsqueeze", ["d1", "z1"], ["u1"]),
               h.make_node("Concat", ["u0", "u1"], ["tgt"], axis=0),
               h.make_node("Reshape", ["b", "tgt"], ["r"]),
               h.make_node("Concat", ["r", "b"], ["cat"], axis=0),
               h.make_node("Unsqueeze", ["r", "z1"], ["b3"]),
               h.make_node("Unsqueeze", ["s", "z01"], ["s3"]),
               h.make_node("NonMaxSuppression", ["b3", "s3", "mo", "iou"], ["sel"])],
              [vi("bx", TP.FLOAT, [8, 4]), vi("sc", TP.FLOAT, [8])],
              [vi("flat", TP.FLOAT, 2), vi("cat", TP.FLOAT, 2), vi("sel", TP.INT64, 2)], 13,
              consts)
    xy = rng.uniform(0, 10, (8, 2)).astype(np.float32)
    bx = np.concatenate([xy, xy + rng.uniform(1, 4, (8, 2)).astype(np.float32)], 1)
    bx[3] = bx[1] + 0.1   # overlaps box 1: suppressed when both pass
    sc = np.array([0.9, 0.8, 0.1, 0.7, 0.35, 0.2, 0.6, 0.5], np.float32)
    case(out, "detect", m, [[bx, sc], [bx, sc - 0.3], [bx, sc - 0.7], [bx, sc - 0.55]], 3)

    # torchvision's batched_nms: If(len(boxes) == 0) an empty int64 [0],
    # else NMS of the boxes offset per label (a run-time count; times a
    # full_like of twos, ConstantOfShape(Shape), bounded for NMS): the
    # branches differ in shape, chosen at run time (SelectBranch), the
    # else-branch's ReduceMax then running on 0 boxes too
    then_g = h.make_graph([h.make_node("Constant", [], ["e"], value=numpy_helper.from_array(
        np.zeros(0, i64), "ev"))], "then", [], [vi("e", TP.INT64, [0])])
    else_g = h.make_graph([
        h.make_node("ReduceMax", ["b"], ["mx"], keepdims=0),
        h.make_node("Cast", ["l"], ["lc"], to=TP.FLOAT),
        h.make_node("Shape", ["l"], ["lshp"]),
        h.make_node("ConstantOfShape", ["lshp"], ["twos"], value=numpy_helper.from_array(
            np.full(1, 2, np.float32), "twov")),
        h.make_node("Mul", ["lc", "twos"], ["lf"]),
        h.make_node("Add", ["mx", "one"], ["mx1"]),
        h.make_node("Mul", ["lf", "mx1"], ["off"]),
        h.make_node("Unsqueeze", ["off", "i1v"], ["off2"]),
        h.make_node("Add", ["b", "off2"], ["bn"]),
        h.make_node("Unsqueeze", ["bn", "z1"], ["bn3"]),
        h.make_node("Unsqueeze", ["s", "z01"], ["s3"]),
        h.make_node("NonMaxSuppression", ["bn3", "s3", "mo", "iou"], ["sel"]),
        h.make_node("Gather", ["sel", "i2"], ["sel2"], axis=1),
        h.make_node("Squeeze", ["sel2", "i1v"], ["keep"])], "else", [], [vi("keep", TP.INT64, 1)])
    consts += [numpy_helper.from_array(np.array(v, dtype=t), nm) for nm, v, t in
               (("one", 1, np.float32), ("i1v", [1], i64), ("i2", [2], i64),
                ("zero", 0, i64))]
    m = model([h.make_node("Greater", ["sc", "th"], ["pass"]),
               h.make_node("NonZero", ["pass"], ["nz"]),
               h.make_node("Squeeze", ["nz", "z1"], ["idx"]),
               h.make_node("Gather", ["bx", "idx"], ["b"], axis=0),
               h.make_node("Gather", ["sc", "idx"], ["s"], axis=0),
               h.make_node("Gather", ["lab", "idx"], ["l"], axis=0),
               h.make_node("Shape", ["b"], ["shp"]),
               h.make_node("Gather", ["shp", "i0"], ["n"], axis=0),
               h.make_node("Equal", ["n", "zero"], ["none"]),
               h.make_node("If", ["none"], ["k"], then_branch=then_g, else_branch=else_g),
               h.make_node("Gather", ["b", "k"], ["kb"], axis=0),
               h.make_node("Neg", ["kb"], ["y"])],
              [vi("bx", TP.FLOAT, [8, 4]), vi("sc", TP.FLOAT, [8]), vi("lab", TP.INT64, [8])],
              [vi("k", TP.INT64, 1), vi("y", TP.FLOAT, 2)], 13, consts)
    lab = np.array([1, 1, 2, 1, 2, 2, 1, 3], i64)
    case(out, "ifnms", m, [[bx, sc - d, lab] for d in (0, 0.7, 0.3, 0.95, 0.55, -1)], 2)

    # the passing boxes [K, 4] split by constant sizes along axis 1, the
    # parts concatenated 42 times (more inputs than a layer takes)
    sp = numpy_helper.from_array(np.array([1, 1, 2], i64), "sp")
    m = model([h.make_node("Greater", ["sc", "th"], ["pass"]),
               h.make_node("NonZero", ["pass"], ["nz"]),
               h.make_node("Squeeze", ["nz", "z1"], ["idx"]),
               h.make_node("Gather", ["bx", "idx"], ["b"], axis=0),
               h.make_node("Split", ["b", "sp"], ["p0", "p1", "p2"], axis=1),
               h.make_node("Concat", ["p2", "p0", "p1"] * 14, ["y"], axis=1)],
              [vi("bx", TP.FLOAT, [8, 4]), vi("sc", TP.FLOAT, [8])], [vi("y", TP.FLOAT, 2)],
              13, consts[:2] + [sp])
    case(out, "split42", m, [[bx, sc - d] for d in (0, 0.7, -1)], 1)

    # Faster R-CNN's RoI head on the passing boxes [K, 4]: a column [K, 1]
    # squeezed by If(Shape[1] == 1) (a dim fixed at every run: the If
    # folds, its branches of ranks 1 and 2), Size of the run-time rois,
    # RoiAlign of K rois, Gemm (alpha 0.5) on the flattened [K, 8], rows
    # scattered in reverse order (ScatterElements) plus an Expand to
    # Shape of the Gemm's output (planned at its bound)
    f = h.make_graph([h.make_node("Squeeze", ["col", "i1v"], ["sq"])], "then", [],
                     [vi("sq", TP.FLOAT, 1)])
    e = h.make_graph([h.make_node("Identity", ["col"], ["sq2"])], "else", [],
                     [vi("sq2", TP.FLOAT, 2)])
    img = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    rc = [numpy_helper.from_array(v, nm) for nm, v in
          (("i1v", np.array([1], i64)), ("c0", np.array([0], i64)),
           ("w", rng.standard_normal((3, 8)).astype(np.float32)),
           ("wb", rng.standard_normal(3).astype(np.float32)),
           ("zf", np.array(0, np.float32)), ("of", np.array(1, np.float32)),
           ("m1", np.array([-1, 1], i64)))]
    m = model([h.make_node("Greater", ["sc", "th"], ["pass"]),
               h.make_node("NonZero", ["pass"], ["nz"]),
               h.make_node("Squeeze", ["nz", "z1"], ["idx"]),
               h.make_node("Gather", ["bx", "idx"], ["rois"], axis=0),
               h.make_node("Gather", ["rois", "c0"], ["col"], axis=1),
               h.make_node("Shape", ["col"], ["cs"]),
               h.make_node("Gather", ["cs", "i1"], ["c1"], axis=0),
               h.make_node("Equal", ["c1", "i1"], ["one_col"]),
               h.make_node("If", ["one_col"], ["x0"], then_branch=f, else_branch=e),
               h.make_node("Size", ["rois"], ["n"]),
               h.make_node("Mul", ["x0", "zf"], ["z0"]),
               h.make_node("Cast", ["z0"], ["bi"], to=TP.INT64),
               h.make_node("RoiAlign", ["img", "rois", "bi"], ["ra"], output_height=2,
                           output_width=2, sampling_ratio=2, spatial_scale=0.5),
               h.make_node("Flatten", ["ra"], ["fl"], axis=1),
               h.make_node("Gemm", ["fl", "w", "wb"], ["g"], transB=1, alpha=0.5),
               h.make_node("Mul", ["g", "zf"], ["gz"]),
               h.make_node("Add", ["gz", "of"], ["ones"]),
               h.make_node("CumSum", ["ones", "i0"], ["cs1"], reverse=1),
               h.make_node("Sub", ["cs1", "of"], ["rv"]),
               h.make_node("Cast", ["rv"], ["ri"], to=TP.INT64),
               h.make_node("Shape", ["g"], ["gs"]),
               h.make_node("ConstantOfShape", ["gs"], ["zs"]),
               h.make_node("ScatterElements", ["zs", "ri", "g"], ["sg"], axis=0),
               h.make_node("Reshape", ["x0", "m1"], ["x1"]),
               h.make_node("Expand", ["x1", "gs"], ["xe"]),
               h.make_node("Add", ["sg", "xe"], ["y"])],
              [vi("img", TP.FLOAT, [1, 2, 6, 6]), vi("bx", TP.FLOAT, [8, 4]),
               vi("sc", TP.FLOAT, [8])],
              [vi("n", TP.INT64, []), vi("g", TP.FLOAT, 2), vi("y", TP.FLOAT, 2)], 17,
              consts[:4] + rc)
    case(out, "roihead", m, [[img, bx, sc - d] for d in (0, 0.7, 0.3, -1)], 3)

    # Mask R-CNN's mask head on the regions whose score passes: NonZero ->
    # Gather picks K of 8 feature maps [20, 6, 6]; Conv 3x3 + Relu to 32
    # channels (blocked, 20 padded to 32), Conv 3x3 stride 2 + Relu, a
    # ConvTranspose 2x2 stride 2 to 16 and a 1x1 Conv to 5 (the logits)
    xf = rng.standard_normal((8, 20, 6, 6)).astype(np.float32)
    sf = rng.standard_normal(8).astype(np.float32)
    wts = [numpy_helper.from_array(v, nm) for nm, v in
           (("w1", 0.2 * rng.standard_normal((32, 20, 3, 3)).astype(np.float32)),
            ("b1", rng.standard_normal(32).astype(np.float32)),
            ("w2", 0.2 * rng.standard_normal((32, 32, 3, 3)).astype(np.float32)),
            ("b2", rng.standard_normal(32).astype(np.float32)),
            ("wt", 0.2 * rng.standard_normal((32, 16, 2, 2)).astype(np.float32)),
            ("bt", rng.standard_normal(16).astype(np.float32)),
            ("w3", 0.2 * rng.standard_normal((5, 16, 1, 1)).astype(np.float32)),
            ("b3", rng.standard_normal(5).astype(np.float32)),
            ("zero", np.array(0, np.float32)), ("ax0", np.array([0], i64)))]
    m = model(roi_pick() + [
               h.make_node("Conv", ["f", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
               h.make_node("Relu", ["c1"], ["r1"]),
               h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
                           strides=[2, 2]),
               h.make_node("Relu", ["c2"], ["r2"]),
               h.make_node("ConvTranspose", ["r2", "wt", "bt"], ["up"], strides=[2, 2]),
               h.make_node("Relu", ["up"], ["r3"]),
               h.make_node("Conv", ["r3", "w3", "b3"], ["y"])],
              [vi("x", TP.FLOAT, [8, 20, 6, 6]), vi("s", TP.FLOAT, [8])],
              [vi("r1", TP.FLOAT, 4), vi("y", TP.FLOAT, 4)], 17, wts)
    # K = 3, 0, 1, 8 (the scores shifted), then 2
    case(out, "roiconv", m, [[xf, sf - d] for d in (0, 9, 1.5, -9, 0.5)], 2)

    # The head's 3x3 convs on Winograd and a Conv1d on conv_frames, at the
    # run's K (the kernels the part's profile check names)
    xw = rng.standard_normal((8, 32, 16, 16)).astype(np.float32)
    xs = rng.standard_normal((8, 16, 20)).astype(np.float32)
    xv = rng.standard_normal((8, 8, 3, 4, 4)).astype(np.float32)
    wts = [numpy_helper.from_array(v, nm) for nm, v in
           (("w1", 0.1 * rng.standard_normal((32, 32, 3, 3)).astype(np.float32)),
            ("b1", rng.standard_normal(32).astype(np.float32)),
            ("w2", 0.2 * rng.standard_normal((24, 16, 3)).astype(np.float32)),
            ("b2", rng.standard_normal(24).astype(np.float32)),
            ("wv", 0.2 * rng.standard_normal((8, 4, 2, 2, 2)).astype(np.float32)),
            ("bv", rng.standard_normal(4).astype(np.float32)),
            ("zero", np.array(0, np.float32)), ("ax0", np.array([0], i64)))]
    m = model(roi_pick() + [
               h.make_node("Conv", ["f", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
               h.make_node("Relu", ["c1"], ["y"]),
               h.make_node("Gather", ["q", "idx"], ["fq"], axis=0),
               h.make_node("Conv", ["fq", "w2", "b2"], ["y1"], pads=[1, 1]),
               h.make_node("Gather", ["v", "idx"], ["fv"], axis=0),
               h.make_node("ConvTranspose", ["fv", "wv", "bv"], ["y2"], strides=[2, 2, 2])],
              [vi("x", TP.FLOAT, [8, 32, 16, 16]), vi("s", TP.FLOAT, [8]),
               vi("q", TP.FLOAT, [8, 16, 20]), vi("v", TP.FLOAT, [8, 8, 3, 4, 4])],
              [vi("y", TP.FLOAT, 4), vi("y1", TP.FLOAT, 3), vi("y2", TP.FLOAT, 5)], 17, wts)
    case(out, "roiwino", m, [[xw, sf - d, xs, xv] for d in (0, 9, 1.5, -9)], 3)


if __name__ == "__main__":
    main()
