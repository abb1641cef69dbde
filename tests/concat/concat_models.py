#!/usr/bin/python3
"""concat_models.py OUTDIR [NAME...] - seeded models for the concatenation
knob (tests/parts/43-concat.sh, bench/RESULTS.md), exported by Debian's
PyTorch with one input each: OUTDIR/NAME.onnx and NAME.in_0.pb.

  qkv        a small encoder layer whose Q, K and V are three nn.Linear of
             one input (sequence 32, hidden 64, 4 heads; GELU MLP): the
             projections the pass merges into one MatMul
  qkv_base   the same layer at BERT-base's widths (hidden 768, 12 heads, FFN
             3072, sequence 128), for bench/RESULTS.md
  qkv_gemm   the same kind of projections on a 2-D input, 5 rows (Gemm)
  gemv       the same at 1 row (the GEMV path of a Gemm at batch 1)
  mixed      convs of one input, merged in two groups: 1x1 with ReLU of 24
             and 16 channels (conv8x2's family; the 24 last in the Split),
             and of 32, 20 and 48 (the direct conv's; the 20 last); left
             alone: 1x1 of 40 channels (a second 8 mod 16 in its family),
             of 36 (a second width not a multiple of 16), 1x1 without ReLU
             (another act), 3x3, 1x1 of stride 2
  branches   1x1 convs whose outputs Concats read: a Split that copies the
             parts in concats and one placed around a concat's last part
             (rt/inplace.c)
  hand       written with onnx.helper at opset 11 (Split's sizes an
             attribute), every member's output a graph output: Gemm with
             transB 0, MatMul without bias, Conv without bias (32 and 20
             channels); left alone: a Gemm with alpha 0.5, a grouped 1x1
             conv; outputs y0..y7
  googlenet  torchvision GoogLeNet (aux_logits off, init_weights, eval,
             224x224): three 1x1 convs read each inception module's input
  inception_v3  torchvision Inception-v3 (aux_logits off, init_weights,
             eval, 299x299)"""
import os
import sys
import warnings

import numpy as np
import torch
from onnx import numpy_helper

warnings.filterwarnings("ignore")


class Qkv(torch.nn.Module):
    def __init__(self, d=64, heads=4, ff=128):
        super().__init__()
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.v = torch.nn.Linear(d, d)
        self.o = torch.nn.Linear(d, d)
        self.n1 = torch.nn.LayerNorm(d)
        self.f1 = torch.nn.Linear(d, ff)
        self.f2 = torch.nn.Linear(ff, d)
        self.n2 = torch.nn.LayerNorm(d)
        self.h = heads

    def forward(self, x):
        b, s, d = x.shape
        h = self.h

        def heads(t):
            return t.reshape(b, s, h, d // h).transpose(1, 2)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // h) ** 0.5, dim=-1) @ v
        x = self.n1(x + self.o(a.transpose(1, 2).reshape(b, s, d)))
        return self.n2(x + self.f2(torch.nn.functional.gelu(self.f1(x))))


class QkvGemm(torch.nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, 32)
        self.v = torch.nn.Linear(d, 80)

    def forward(self, x):
        return torch.cat([torch.relu(self.q(x)), torch.relu(self.k(x)), torch.relu(self.v(x))], 1)


class Mixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        c = torch.nn.Conv2d
        self.a, self.b, self.c = c(40, 24, 1), c(40, 16, 1), c(40, 40, 1)
        self.g, self.h, self.i, self.j = c(40, 32, 1), c(40, 20, 1), c(40, 48, 1), c(40, 36, 1)
        self.d, self.e, self.f = c(40, 16, 1), c(40, 16, 3, padding=1), c(40, 16, 1, stride=2)

    def forward(self, x):
        r = torch.relu
        ys = [r(self.a(x)), r(self.b(x)), r(self.c(x)), r(self.g(x)), r(self.h(x)),
              r(self.i(x)), r(self.j(x)), self.d(x), r(self.e(x)), r(self.f(x))]
        return torch.cat([y.flatten(1) for y in ys], 1)


class Branches(torch.nn.Module):
    """1x1 branches whose outputs Concats read (rt/inplace.c): a, b, c of x
    merged, a in the middle of a concat and c last in another (both copied
    by the Split, b a slice); p, q of h merged, p last in a concat (the
    merged conv's output placed around it, q past the concat's end)."""
    def __init__(self):
        super().__init__()
        c = torch.nn.Conv2d
        self.a, self.b, self.c = c(32, 32, 1), c(32, 32, 1), c(32, 48, 1)
        self.e, self.f, self.k = c(32, 16, 3, padding=1), c(32, 16, 3, padding=1), c(80, 48, 1)
        self.p, self.q, self.s = c(48, 32, 1), c(48, 48, 1), c(48, 16, 3, padding=1)

    def forward(self, x):
        r, pool = torch.relu, torch.nn.functional.max_pool2d
        a, b, c = r(self.a(x)), r(self.b(x)), r(self.c(x))
        y1 = torch.cat([r(self.e(x)), a, r(self.f(b))], 1)
        y2 = torch.cat([pool(x, 3, 1, 1), c], 1)
        h = r(self.k(y2))
        p, q = r(self.p(h)), r(self.q(h))
        y3 = torch.cat([pool(h, 3, 1, 1), p], 1)
        return torch.cat([y.flatten(1) for y in (y1, y2, y3, r(self.s(q)))], 1)


def hand(out):
    from onnx import TensorProto, helper
    rng = np.random.default_rng(43)

    def const(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
    inits = [const("gb0", 6, 5), const("gc0", 5), const("gb1", 6, 7), const("gc1", 7),
             const("mb0", 6, 4), const("mb1", 6, 8), const("cw0", 32, 6, 1, 1),
             const("cw1", 20, 6, 1, 1), const("gb2", 6, 3), const("cw2", 16, 3, 1, 1)]
    nodes = [helper.make_node("Gemm", ["a", "gb0", "gc0"], ["y0"], name="g0"),
             helper.make_node("Gemm", ["a", "gb1", "gc1"], ["y1"], name="g1"),
             helper.make_node("MatMul", ["b", "mb0"], ["y2"], name="m0"),
             helper.make_node("MatMul", ["b", "mb1"], ["y3"], name="m1"),
             helper.make_node("Conv", ["x", "cw0"], ["y4"], name="c0"),
             helper.make_node("Conv", ["x", "cw1"], ["y5"], name="c1"),
             helper.make_node("Gemm", ["a", "gb2"], ["y6"], name="g2", alpha=0.5),
             helper.make_node("Conv", ["x", "cw2"], ["y7"], name="c2", group=2)]
    f = TensorProto.FLOAT
    ins = [helper.make_tensor_value_info("a", f, [4, 6]),
           helper.make_tensor_value_info("b", f, [2, 3, 6]),
           helper.make_tensor_value_info("x", f, [1, 6, 5, 5])]
    shapes = [[4, 5], [4, 7], [2, 3, 4], [2, 3, 8], [1, 32, 5, 5], [1, 20, 5, 5], [4, 3],
              [1, 16, 5, 5]]
    outs = [helper.make_tensor_value_info("y%d" % i, f, sh) for i, sh in enumerate(shapes)]
    g = helper.make_graph(nodes, "hand", ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 6
    import onnx
    onnx.save(m, os.path.join(out, "hand.onnx"))
    for k, (n, sh) in enumerate([("a", (4, 6)), ("b", (2, 3, 6)), ("x", (1, 6, 5, 5))]):
        with open(os.path.join(out, "hand.in_%d.pb" % k), "wb") as fh:
            a = rng.standard_normal(sh).astype(np.float32)
            fh.write(numpy_helper.from_array(a, n).SerializeToString())


def build(name):
    import torchvision
    torch.manual_seed(43)
    if name == "qkv":
        return Qkv(), torch.randn(1, 32, 64)
    if name == "qkv_base":
        return Qkv(768, 12, 3072), torch.randn(1, 128, 768)
    if name == "qkv_gemm":
        return QkvGemm(), torch.randn(5, 48)
    if name == "gemv":
        return QkvGemm(), torch.randn(1, 48)
    if name == "mixed":
        return Mixed(), torch.randn(1, 40, 9, 9)
    if name == "branches":
        return Branches(), torch.randn(1, 32, 8, 8)
    if name == "googlenet":
        return (torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True),
                torch.randn(1, 3, 224, 224))
    if name == "inception_v3":
        return (torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=True),
                torch.randn(1, 3, 299, 299))
    raise SystemExit("concat_models.py: unknown model %s" % name)


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or ["qkv", "qkv_gemm", "gemv", "mixed", "branches", "hand",
                             "googlenet"]
    os.makedirs(out, exist_ok=True)
    for n in names:
        if n == "hand":
            hand(out)
            print(n)
            continue
        m, x = build(n)
        m.eval()
        with torch.no_grad():
            torch.onnx.export(m, x, os.path.join(out, n + ".onnx"), opset_version=14,
                              input_names=["x"], output_names=["y"])
        with open(os.path.join(out, n + ".in_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy().astype(np.float32), "x").SerializeToString())
        print(n)


if __name__ == "__main__":
    main()
