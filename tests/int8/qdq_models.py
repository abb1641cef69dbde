#!/usr/bin/env python3
"""qdq_models.py OUTDIR - small quantized (QDQ) ONNX models for the qdq pass
and the int8 conv kernels (tests/parts/41-int8.sh), written with onnx's
helpers and seeded numpy weights, in the format quantizers write:
QuantizeLinear -> DequantizeLinear on activations, int8 weights (per channel
on axis 0, or per tensor) and the int32 bias (scale x_scale * w_scale) behind
DequantizeLinears. For each model NAME it writes NAME.onnx
and NAME.in_0.pb, and prints "NAME QCONVS QADDS QGEMMS": how many QCONV,
QADD and QGEMM layers the pass must make of it (the cases it must leave
alone say fewer)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(41)


class Net:
    def __init__(self, name, act_type=TensorProto.UINT8):
        self.name, self.nodes, self.inits, self.k = name, [], [], 0
        self.act_type = act_type

    def const(self, base, arr):
        self.k += 1
        n = f"{base}_{self.k}"
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def node(self, op, ins, **attrs):
        self.k += 1
        out = f"{op.lower()}_{self.k}"
        self.nodes.append(helper.make_node(op, ins, [out], name=f"n{self.k}_{op}", **attrs))
        return out

    def qdq(self, x, scale, zp, dq=True):
        np_t = np.uint8 if self.act_type == TensorProto.UINT8 else np.int8
        s = self.const("s", np.array(scale, np.float32))
        z = self.const("z", np.array(zp, np_t))
        q = self.node("QuantizeLinear", [x, s, z])
        return self.node("DequantizeLinear", [q, s, z]) if dq else q

    def conv(self, x, sx, c, m, k, stride=1, pad=0, group=1, per_channel=True, bias=True):
        w = rng.standard_normal((m, c // group, k, k)).astype(np.float32) / np.sqrt(c * k * k / group)
        if per_channel:
            sw = (np.abs(w).reshape(m, -1).max(1) / 127).astype(np.float32)
            wq = np.clip(np.round(w / sw[:, None, None, None]), -127, 127).astype(np.int8)
        else:
            sw = np.array(np.abs(w).max() / 127, np.float32)
            wq = np.clip(np.round(w / sw), -127, 127).astype(np.int8)
        wd = self.node("DequantizeLinear", [self.const("wq", wq), self.const("ws", sw),
                                            self.const("wz", np.zeros(sw.shape, np.int8))],
                       **({"axis": 0} if per_channel else {}))
        ins = [x, wd]
        if bias:   # int32 with scale sx * sw, as quantizers write it
            sb = (np.float32(sx) * sw * np.ones(m, np.float32)).astype(np.float32)
            bq = np.round(rng.standard_normal(m) * 0.1 / sb).astype(np.int32)
            ins.append(self.node("DequantizeLinear", [self.const("bq", bq), self.const("bs", sb),
                                                      self.const("bz", np.zeros(m, np.int32))],
                                 axis=0))
        return self.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4, group=group)

    def gemm(self, x, sx, k, m, trans_b):
        w = rng.standard_normal((m, k)).astype(np.float32) / np.sqrt(k)
        sw = (np.abs(w).max(1) / 127).astype(np.float32)
        wq = np.clip(np.round(w / sw[:, None]), -127, 127).astype(np.int8)
        if not trans_b:
            wq = np.ascontiguousarray(wq.T)
        wd = self.node("DequantizeLinear", [self.const("wq", wq), self.const("ws", sw),
                                            self.const("wz", np.zeros(m, np.int8))],
                       axis=0 if trans_b else 1)
        sb = (np.float32(sx) * sw).astype(np.float32)
        bq = np.round(rng.standard_normal(m) * 0.1 / sb).astype(np.int32)
        b = self.node("DequantizeLinear", [self.const("bq", bq), self.const("bs", sb),
                                           self.const("bz", np.zeros(m, np.int32))], axis=0)
        return self.node("Gemm", [x, wd, b], transB=trans_b)

    def save(self, outdir, x, out, out_type, shape, qconvs, qadds=0, qgemms=0):
        g = helper.make_graph(self.nodes, self.name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info(out, out_type, shape)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(outdir, self.name + ".onnx"))
        with open(os.path.join(outdir, self.name + ".in_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "x").SerializeToString())
        print(self.name, qconvs, qadds, qgemms)


def chain(outdir):
    """3x3 + Relu, a MaxPool between QDQ pairs of one scale, 1x1, 3x3
    stride 2 + Clip(0, 6): uint8 out."""
    n = Net("chain")
    x = rng.standard_normal((1, 16, 20, 20)).astype(np.float32)
    h = n.qdq("x", 0.03, 128)
    h = n.node("Relu", [n.conv(h, 0.03, 16, 32, 3, pad=1)])
    h = n.qdq(h, 0.02, 0)
    h = n.qdq(n.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
              0.02, 0)
    h = n.qdq(n.conv(h, 0.02, 32, 24, 1), 0.05, 120)
    lo, hi = n.const("lo", np.array(0, np.float32)), n.const("hi", np.array(6, np.float32))
    h = n.node("Clip", [n.conv(h, 0.05, 24, 40, 3, stride=2, pad=1), lo, hi])
    h = n.qdq(h, 6 / 255, 0, dq=False)
    n.save(outdir, x, h, TensorProto.UINT8, [1, 40, 5, 5], 3)


def stem(outdir):
    """7x7 stride 2 over 3 channels, two images, float out."""
    n = Net("stem")
    x = rng.standard_normal((2, 3, 33, 30)).astype(np.float32)
    h = n.qdq("x", 0.025, 130)
    h = n.node("Relu", [n.conv(h, 0.025, 3, 64, 7, stride=2, pad=3)])
    h = n.qdq(h, 0.01, 0)
    h = n.qdq(n.conv(h, 0.01, 64, 20, 3, pad=1, per_channel=False, bias=False), 0.04, 100)
    n.save(outdir, x, h, TensorProto.FLOAT, [2, 20, 17, 15], 2)


def signed(outdir):
    """int8 activations with zero points, per-tensor weights; a residual Add
    in int8 (into the conv that is its B)."""
    n = Net("signed", TensorProto.INT8)
    x = rng.standard_normal((1, 8, 17, 19)).astype(np.float32)
    h = n.qdq("x", 0.03, -5)
    h = n.node("Relu", [n.conv(h, 0.03, 8, 24, 3, pad=1, per_channel=False)])
    h = n.qdq(h, 0.01, -128)
    h1 = n.qdq(n.conv(h, 0.01, 24, 16, 3, stride=2), 0.03, 3)
    h = n.qdq(n.conv(h1, 0.03, 16, 16, 3, pad=1, per_channel=False), 0.02, 3)
    h = n.qdq(n.node("Add", [h1, h]), 0.025, -7, dq=False)   # the conv the Add's B
    n.save(outdir, x, h, TensorProto.INT8, [1, 16, 8, 9], 3)


def residual(outdir):
    """A ResNet basic block: two convs and the identity into Add + Relu
    (QLinearAdd with act), then an Add without Relu, then an Add + Relu
    whose B is a conv: each into its conv as a residual; then an Add of a
    MaxPool and its input, which stays QLinearAdd; 24 channels (a partial
    block)."""
    n = Net("residual")
    x = rng.standard_normal((1, 24, 14, 14)).astype(np.float32)
    h0 = n.qdq("x", 0.03, 128)
    h = n.qdq(n.node("Relu", [n.conv(h0, 0.03, 24, 24, 3, pad=1)]), 0.02, 0)
    h = n.qdq(n.conv(h, 0.02, 24, 24, 3, pad=1), 0.04, 125)
    h = n.qdq(n.node("Relu", [n.node("Add", [h, h0])]), 0.03, 0)
    h2 = n.qdq(n.conv(h, 0.03, 24, 24, 1), 0.05, 128)
    h = n.qdq(n.node("Add", [h2, h]), 0.05, 120)
    h3 = n.qdq(n.conv(h, 0.05, 24, 24, 3, pad=1), 0.04, 131)
    h = n.qdq(n.node("Relu", [n.node("Add", [h, h3])]), 0.03, 0)
    h4 = n.qdq(n.node("MaxPool", [h], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
               0.03, 0)
    h = n.qdq(n.node("Add", [h4, h]), 0.06, 110, dq=False)
    n.save(outdir, x, h, TensorProto.UINT8, [1, 24, 14, 14], 4, 1)


def depthwise(outdir):
    """A MobileNetV2 block: 1x1 expand + ReLU6, depthwise 3x3 stride 2 +
    ReLU6 (48 channels: three blocks), 1x1 project; and a depthwise 5x5
    stride 1 over 24 channels (a partial block)."""
    n = Net("depthwise")
    x = rng.standard_normal((1, 24, 15, 15)).astype(np.float32)
    lo, hi = n.const("lo", np.array(0, np.float32)), n.const("hi", np.array(6, np.float32))
    h = n.qdq("x", 0.03, 128)
    h = n.qdq(n.node("Clip", [n.conv(h, 0.03, 24, 48, 1), lo, hi]), 6 / 255, 0)
    h = n.qdq(n.node("Clip", [n.conv(h, 6 / 255, 48, 48, 3, stride=2, pad=1, group=48), lo, hi]),
              6 / 255, 0)
    h = n.qdq(n.conv(h, 6 / 255, 48, 24, 1), 0.05, 128)
    h = n.qdq(n.conv(h, 0.05, 24, 24, 5, pad=2, group=24), 0.05, 120, dq=False)
    n.save(outdir, x, h, TensorProto.UINT8, [1, 24, 8, 8], 4)


def fc(outdir):
    """Two fully connected layers: W [N, K] (transB, per-channel axis 0) with
    Relu, uint8 out; then W [K, N] (axis 1) with float logits out."""
    n = Net("fc")
    x = rng.standard_normal((3, 64)).astype(np.float32)
    h = n.qdq("x", 0.03, 128)
    h = n.qdq(n.node("Relu", [n.gemm(h, 0.03, 64, 48, trans_b=1)]), 0.02, 0)
    h = n.gemm(h, 0.02, 48, 10, trans_b=0)
    n.save(outdir, x, h, TensorProto.FLOAT, [3, 10], 0, 0, 2)


def left_alone(outdir):
    """The conv output read twice (a Q and an Add) and a grouped conv that is
    not depthwise (the int8 kernels take group 1 and depthwise): neither
    folded."""
    n = Net("left_alone")
    x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
    h = n.qdq("x", 0.03, 128)
    y = n.conv(h, 0.03, 16, 16, 3, pad=1)
    q = n.qdq(y, 0.05, 128)
    h = n.node("Add", [q, y])
    h = n.qdq(h, 0.08, 128)
    h = n.qdq(n.conv(h, 0.08, 16, 32, 3, pad=1, group=4), 0.05, 128, dq=False)
    n.save(outdir, x, h, TensorProto.UINT8, [1, 32, 12, 12], 0)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for f in (chain, stem, signed, residual, depthwise, fc, left_alone):
        f(out)
