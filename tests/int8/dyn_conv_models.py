#!/usr/bin/env python3
"""dyn_conv_models.py OUTDIR - small dynamically quantized conv and matmul
models for tests/parts/41-dynamic-conv.sh, in the form ONNX Runtime's
quantize_dynamic writes (onnxruntime.quantization is not installed here, so
written with onnx's helpers): DynamicQuantizeLinear -> ConvInteger or
MatMulInteger (uint8 weights with their zero point, per tensor or per
output channel / column, or int8 weights) -> Cast -> Mul by x_scale *
w_scale -> Add the bias [-> Relu], the float weights seeded. Each model's
outputs: the last float result, then the int32 sums of every ConvInteger
and MatMulInteger (compared bit for bit). For each model NAME it writes
NAME.onnx, NAME_f.onnx (the float result alone: the chains fold) and
NAME.in_0.pb and prints "NAME OUTPUTS INTEGER_LAYERS"."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(4141)


class Net:
    def __init__(self):
        self.nodes, self.inits, self.outs, self.k = [], [], [], 0

    def const(self, arr):
        self.k += 1
        n = f"c{self.k}"
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def node(self, op, ins, n_out=1, **attrs):
        self.k += 1
        outs = [f"{op.lower()}_{self.k}_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, name=f"n{self.k}_{op}", **attrs))
        return outs if n_out > 1 else outs[0]

    def conv(self, x, c, m, k, wtype="u8", per_channel=False, relu=True, group=1, **attrs):
        """A float Conv [m, c / group, k, k] as quantize_dynamic rewrites it."""
        cg = c // group
        w = (rng.standard_normal((m, cg, k, k)) / np.sqrt(cg * k * k)).astype(np.float32)
        if group > 1:
            attrs["group"] = group
        b = (rng.standard_normal(m) * 0.1).astype(np.float32)
        axes = (1, 2, 3)
        if wtype == "u8":
            # asymmetric uint8: [min(w, 0), max(w, 0)] onto [0, 255]
            lo = np.minimum(w.min(axis=axes) if per_channel else w.min(), 0)
            hi = np.maximum(w.max(axis=axes) if per_channel else w.max(), 0)
            s = ((hi - lo) / 255).astype(np.float32)
            zp = np.clip(np.round(-lo / s), 0, 255).astype(np.uint8)
            sb = s.reshape(-1, 1, 1, 1) if per_channel else s
            zb = zp.reshape(-1, 1, 1, 1).astype(np.float32) if per_channel else zp
            wq = np.clip(np.round(w / sb) + zb, 0, 255).astype(np.uint8)
        else:
            # symmetric int8, zero point 0
            s = np.float32(np.abs(w).max() / 127)
            zp = np.uint8(0).astype(np.int8)
            wq = np.clip(np.round(w / s), -127, 127).astype(np.int8)
        q, xs, xz = self.node("DynamicQuantizeLinear", [x], 3)
        ci = self.node("ConvInteger", [q, self.const(wq), xz, self.const(np.asarray(zp))],
                       kernel_shape=[k, k], **attrs)
        self.outs.append((ci, TensorProto.INT32))
        f = self.node("Cast", [ci], to=TensorProto.FLOAT)
        s = s.reshape(1, m, 1, 1) if per_channel else s
        sc = self.node("Mul", [xs, self.const(np.asarray(s, np.float32))])
        y = self.node("Mul", [f, sc])
        y = self.node("Add", [y, self.const(b.reshape(1, m, 1, 1))])
        return self.node("Relu", [y]) if relu else y

    def matmul(self, x, k, n, wtype="u8", per_column=False, relu=True):
        """A float MatMul by a [k, n] weight as quantize_dynamic rewrites it
        (MatMulInteger; the transformers' linear layers)."""
        w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
        b = (rng.standard_normal(n) * 0.1).astype(np.float32)
        if wtype == "u8":
            lo = np.minimum(w.min(axis=0) if per_column else w.min(), 0)
            hi = np.maximum(w.max(axis=0) if per_column else w.max(), 0)
            s = ((hi - lo) / 255).astype(np.float32)
            zp = np.clip(np.round(-lo / s), 0, 255).astype(np.uint8)
            wq = np.clip(np.round(w / s) + zp.astype(np.float32), 0, 255).astype(np.uint8)
        else:
            s = np.float32(np.abs(w).max() / 127)
            zp = np.uint8(0).astype(np.int8)
            wq = np.clip(np.round(w / s), -127, 127).astype(np.int8)
        q, xs, xz = self.node("DynamicQuantizeLinear", [x], 3)
        mi = self.node("MatMulInteger", [q, self.const(wq), xz, self.const(np.asarray(zp))])
        self.outs.append((mi, TensorProto.INT32))
        f = self.node("Cast", [mi], to=TensorProto.FLOAT)
        sc = self.node("Mul", [xs, self.const(np.asarray(s, np.float32))])
        y = self.node("Mul", [f, sc])
        y = self.node("Add", [y, self.const(b)])
        return self.node("Relu", [y]) if relu else y

    def save(self, outdir, name, x, y):
        """NAME.onnx with the int32 sums as outputs (the chains stay apart),
        and NAME_f.onnx, the same graph with the float result alone (the
        qdyn pass folds each chain into its ConvInteger/MatMulInteger)."""
        ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))]
        r = len(x.shape)
        outs = [helper.make_tensor_value_info(y, TensorProto.FLOAT, ["d%d" % i for i in range(r)])]
        ints = [helper.make_tensor_value_info(o, t, ["d%d" % i for i in range(r)])
                for o, t in self.outs]
        for suffix, o in (("", outs + ints), ("_f", outs)):
            g = helper.make_graph(self.nodes, name, ins, o, self.inits)
            mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
            mdl.ir_version = 7
            onnx.checker.check_model(mdl)
            onnx.save(mdl, f"{outdir}/{name}{suffix}.onnx")
        t = numpy_helper.from_array(x, "x")
        open(f"{outdir}/{name}.in_0.pb", "wb").write(t.SerializeToString())
        print(name, len(outs) + len(ints), len(self.outs))


def main(outdir):
    # a 3x3 chain over odd sizes: 5 -> 20 -> 33 channels, the second conv
    # reading the first's Relu (ONNX Runtime 1.17's ConvInteger takes only
    # a per-tensor w_zero_point: the unit test takes per-channel ones)
    n = Net()
    x = (rng.uniform(-1, 1, (1, 5, 13, 11))).astype(np.float32)
    y = n.conv("x", 5, 20, 3, pads=[1, 1, 1, 1])
    y = n.conv(y, 20, 33, 3, relu=False, pads=[1, 1, 1, 1])
    n.save(outdir, "chain3x3", x, y)
    # the stem of IS-Net: 3 channels, stride 2; then dilation 2 and 4 with
    # pads of their dilation, two images
    n = Net()
    x = (rng.uniform(-1, 1, (2, 3, 24, 19))).astype(np.float32)
    y = n.conv("x", 3, 16, 3, strides=[2, 2], pads=[1, 1, 1, 1])
    y = n.conv(y, 16, 24, 3, dilations=[2, 2], pads=[2, 2, 2, 2])
    y = n.conv(y, 24, 17, 3, dilations=[4, 4], pads=[4, 4, 4, 4], relu=False)
    n.save(outdir, "stem_dilated", x, y)
    # asymmetric pads, a 5x5 with K % 4 != 0 and a 1x1, inputs mostly
    # positive (zero points far from 128); ONNX Runtime 1.17 has no int8
    # weights' ConvInteger (the unit test rt_qconv_dyn takes those)
    n = Net()
    x = (rng.uniform(-0.2, 3, (1, 7, 9, 16))).astype(np.float32)
    y = n.conv("x", 7, 40, 5, pads=[0, 1, 2, 3])
    y = n.conv(y, 40, 19, 1, relu=False)
    n.save(outdir, "pads_1x1", x, y)
    # grouped and depthwise convs (MobileNet's blocks): a 1x1, a depthwise
    # 3x3, a depthwise 3x3 at stride 2, a channel multiplier of 2, a 3x3 of
    # 4 groups with uneven pads, a dilated 5x5 depthwise at stride 2 (its
    # even-byte loads), on two images
    n = Net()
    x = (rng.uniform(-1, 1.5, (2, 6, 17, 21))).astype(np.float32)
    y = n.conv("x", 6, 16, 1)
    y = n.conv(y, 16, 16, 3, group=16, pads=[1, 1, 1, 1])
    y = n.conv(y, 16, 16, 3, group=16, strides=[2, 2], pads=[1, 1, 1, 1])
    y = n.conv(y, 16, 32, 3, group=16, pads=[1, 1, 1, 1])
    y = n.conv(y, 32, 20, 3, group=4, pads=[0, 2, 1, 0])
    y = n.conv(y, 20, 20, 5, group=20, strides=[2, 2], dilations=[2, 2], pads=[4, 3, 4, 3],
               relu=False)
    n.save(outdir, "grouped_dw", x, y)
    # a wide row (more than 16 columns a vector, a tail of each kind) and
    # stride 3 (the twin's loop inside the AVX-512 tap)
    n = Net()
    x = (rng.uniform(-0.5, 2, (1, 8, 9, 70))).astype(np.float32)
    y = n.conv("x", 8, 8, 3, group=8, pads=[1, 0, 1, 2])
    y = n.conv(y, 8, 8, 3, group=8, strides=[3, 3], relu=False)
    n.save(outdir, "dw_wide", x, y)
    # MatMulInteger (MATMUL in the listing): a feed-forward pair over two
    # sequences of 5 tokens, odd sizes, uint8 then int8 weights; one token
    # through a layer with a zero point per column
    n = Net()
    x = (rng.uniform(-1, 2, (2, 5, 48))).astype(np.float32)
    y = n.matmul("x", 48, 37)
    y = n.matmul(y, 37, 67, wtype="s8", relu=False)
    n.save(outdir, "ffn_matmul", x, y)
    n = Net()
    x = (rng.uniform(-1, 1, (1, 1, 65))).astype(np.float32)
    y = n.matmul("x", 65, 101, per_column=True, relu=False)
    n.save(outdir, "token_matmul", x, y)


def qlinear_model(outdir, name, shape, k, n, at, bt, yt, per_column):
    """One QLinearMatMul of an 8-bit graph input by a constant B (the int8
    GEMM's case), the scales chosen so that y spans its type and clamps at
    both ends; prints NAME."""
    info = {np.uint8: (TensorProto.UINT8, 0, 255), np.int8: (TensorProto.INT8, -128, 127)}
    ta, alo, ahi = info[at]
    tb, blo, bhi = info[bt]
    ty, _, _ = info[yt]
    a = rng.integers(alo, ahi + 1, shape + [k]).astype(at)
    b = rng.integers(blo, bhi + 1, (k, n)).astype(bt)
    nb = n if per_column else 1
    bs = (rng.uniform(0.5, 2, nb) * 0.004).astype(np.float32)
    bz = rng.integers(blo // 4 + bhi // 4, bhi // 2 + blo // 4 + 40, nb).astype(bt)
    if bt == np.int8:
        bz = np.zeros(nb, np.int8)   # ONNX Runtime takes int8 B with zero point 0 only
    if not per_column:
        bs, bz = bs.reshape(()), bz.reshape(())
    inits = [numpy_helper.from_array(v, nm) for v, nm in (
        (np.asarray(0.02, np.float32), "as"), (np.asarray((alo + ahi) // 2 + 3, at), "az"),
        (b, "b"), (bs, "bs"), (bz, "bz"),
        (np.asarray(0.008 * np.sqrt(k), np.float32), "ys"),
        (np.asarray(120 if yt == np.uint8 else -5, yt), "yz"))]
    nd = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"],
                          name="qlmm")
    g = helper.make_graph([nd], name, [helper.make_tensor_value_info("a", ta, list(a.shape))],
                          [helper.make_tensor_value_info("y", ty, shape + [n])], inits)
    mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    mdl.ir_version = 7
    onnx.checker.check_model(mdl)
    onnx.save(mdl, f"{outdir}/{name}.onnx")
    open(f"{outdir}/{name}.in_0.pb", "wb").write(numpy_helper.from_array(a, "a").SerializeToString())
    print(name)


def qlinear_models(outdir):
    """QLinearMatMul with a constant B (tests/parts/41-dynamic-conv.sh's
    second half): uint8 and int8 operands (y of A's type: ONNX Runtime
    1.17 has no other), per-tensor and per-column B scales, batch dims, one
    token, rows of several blocks."""
    qlinear_model(outdir, "qlmm_u8", [2, 5], 48, 37, np.uint8, np.uint8, np.uint8, False)
    qlinear_model(outdir, "qlmm_u8s8_col", [1, 1], 65, 101, np.uint8, np.int8, np.uint8, True)
    qlinear_model(outdir, "qlmm_u8_col", [200], 97, 45, np.uint8, np.uint8, np.uint8, True)
    qlinear_model(outdir, "qlmm_s8", [3, 7], 130, 70, np.int8, np.int8, np.int8, False)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "qlinear":
        qlinear_models(sys.argv[1])
    else:
        main(sys.argv[1])
