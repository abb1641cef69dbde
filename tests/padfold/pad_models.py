#!/usr/bin/python3
"""pad_models.py OUTDIR - seeded small models for the pad fold pass
(src/passes/pad_fold.c, tests/parts/47-pad-fold.sh): OUTDIR/NAME.onnx,
NAME.in_0.pb and NAME.torch.pb (PyTorch's own output, float32), and one
line per model on stdout: NAME PADS-LEFT (the Pad layers the pass must
leave).

  avg_incl   avg_pool2d(x, 3, 1, padding=1), count_include_pad True
             (exported as Pad + AveragePool): folds
  avg_excl   the same with count_include_pad False (AveragePool's own pads:
             no Pad)
  pad_conv   F.pad(x, (1, 2, 0, 1)) then a 3x3 conv: folds
  pad_max    F.pad(x, (1, 1, 1, 1)) then max_pool2d(3, 1) on negative
             values: the zeros win, left alone
  ninf_max   (onnx.helper) Pad with value -inf then MaxPool 3x3: folds
  pad_twice  one Pad read by two convs: left alone
  (onnx.helper, X 1x8x9x11, PyTorch's functional ops as the reference:)
  avg_ownpad Pad 1 + AveragePool with pads 1, count_include_pad 0: left
  avg_same   Pad 1 + AveragePool with auto_pad SAME_UPPER: left
  pad_chan   a Pad of the channels + Conv: left
  too_big    Pad 2 + AveragePool 3x3 with pads 1 (3 >= the kernel): left
  avg_cip    Pad of H's top + AveragePool with count_include_pad 1 and
             pads of its own: folds"""
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper, TensorProto

warnings.filterwarnings("ignore")


class AvgIncl(torch.nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, 3, 1, padding=1, count_include_pad=True)


class AvgExcl(torch.nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, 3, 1, padding=1, count_include_pad=False)


class PadConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(8, 16, 3)

    def forward(self, x):
        return torch.relu(self.c(F.pad(x, (1, 2, 0, 1))))


class PadMax(torch.nn.Module):
    def forward(self, x):
        return F.max_pool2d(F.pad(x - 3.0, (1, 1, 1, 1)), 3, 1)


class PadTwice(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(8, 8, 3)
        self.b = torch.nn.Conv2d(8, 8, 3)

    def forward(self, x):
        p = F.pad(x, (1, 1, 1, 1))
        return self.a(p) + self.b(p)


def save(out, name, x, y):
    open(os.path.join(out, name + ".in_0.pb"), "wb").write(
        numpy_helper.from_array(x, "x").SerializeToString())
    open(os.path.join(out, name + ".torch.pb"), "wb").write(
        numpy_helper.from_array(y.astype(np.float32), "y").SerializeToString())


def export(out, name, model, shape, left):
    torch.manual_seed(7)
    m = model().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        y = m(x).numpy()
    torch.onnx.export(m, x, os.path.join(out, name + ".onnx"), opset_version=13,
                      input_names=["x"], output_names=["y"])
    save(out, name, x.numpy(), y)
    print(name, left)


def ninf_max(out):
    x = np.random.default_rng(3).standard_normal((1, 16, 9, 11)).astype(np.float32) - 3
    g = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads", "v"], ["p"], mode="constant"),
         helper.make_node("MaxPool", ["p"], ["y"], kernel_shape=[3, 3])],
        "ninf_max", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([0, 0, 1, 2, 0, 0, 1, 0], np.int64), "pads"),
         numpy_helper.from_array(np.array(-np.inf, np.float32), "v")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, "ninf_max.onnx"))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 0)), constant_values=-np.inf)
    y = F.max_pool2d(torch.from_numpy(xp), 3, 1).numpy()
    save(out, "ninf_max", x, y)
    print("ninf_max", 0)


def hand(out, name, pads, op, attrs, ref, left, w=None):
    """Pad(x, pads) -> op(attrs) at opset 13; ref(x, w) is PyTorch's."""
    x = np.random.default_rng(5).standard_normal((1, 8, 9, 11)).astype(np.float32)
    ins, inits = ["p"], [numpy_helper.from_array(np.array(pads, np.int64), "pads")]
    if w is not None:
        ins.append("w")
        inits.append(numpy_helper.from_array(w, "w"))
    g = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
         helper.make_node(op, ins, ["y"], **attrs)],
        name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, name + ".onnx"))
    with torch.no_grad():
        y = ref(torch.from_numpy(x), None if w is None else torch.from_numpy(w)).numpy()
    save(out, name, x, y)
    print(name, left)


def hand_models(out):
    k3 = {"kernel_shape": [3, 3]}
    hand(out, "avg_ownpad", [0, 0, 1, 1, 0, 0, 1, 1], "AveragePool", dict(k3, pads=[1, 1, 1, 1]),
         lambda x, w: F.avg_pool2d(F.pad(x, (1, 1, 1, 1)), 3, 1, 1, count_include_pad=False), 1)
    hand(out, "avg_same", [0, 0, 1, 1, 0, 0, 1, 1], "AveragePool",
         dict(k3, auto_pad="SAME_UPPER"),
         lambda x, w: F.avg_pool2d(F.pad(x, (1, 1, 1, 1)), 3, 1, 1, count_include_pad=False), 1)
    wc = np.random.default_rng(6).standard_normal((4, 9, 3, 3)).astype(np.float32)
    hand(out, "pad_chan", [0, 0, 0, 0, 0, 1, 0, 0], "Conv", {},
         lambda x, w: F.conv2d(F.pad(x, (0, 0, 0, 0, 0, 1)), w), 1, wc)
    hand(out, "too_big", [0, 0, 2, 2, 0, 0, 2, 2], "AveragePool",
         dict(k3, pads=[1, 1, 1, 1], count_include_pad=1),
         lambda x, w: F.avg_pool2d(F.pad(x, (2, 2, 2, 2)), 3, 1, 1, count_include_pad=True), 1)
    hand(out, "avg_cip", [0, 0, 1, 0, 0, 0, 0, 0], "AveragePool",
         dict(k3, pads=[0, 1, 1, 1], count_include_pad=1),
         lambda x, w: F.avg_pool2d(F.pad(x, (1, 1, 1, 1)), 3, 1), 0)


def main():
    out = sys.argv[1]
    export(out, "avg_incl", AvgIncl, (1, 16, 12, 10), 0)
    export(out, "avg_excl", AvgExcl, (1, 16, 12, 10), 0)
    export(out, "pad_conv", PadConv, (1, 8, 10, 9), 0)
    export(out, "pad_max", PadMax, (1, 16, 9, 11), 1)
    ninf_max(out)
    export(out, "pad_twice", PadTwice, (1, 8, 10, 9), 1)
    hand_models(out)


if __name__ == "__main__":
    main()
