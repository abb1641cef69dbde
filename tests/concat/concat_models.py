#!/usr/bin/python3
"""concat_models.py OUTDIR [NAME...] - seeded models for the concatenation
knob (tests/parts/43-concat.sh, bench/RESULTS.md), exported by Debian's
PyTorch with one input each: OUTDIR/NAME.onnx and NAME.in_0.pb.

  qkv        a small encoder layer whose Q, K and V are three nn.Linear of
             one input (sequence 32, hidden 64, 4 heads; GELU MLP): the
             projections the pass merges into one MatMul
  qkv_gemm   the same projections on a 2-D input (exported as Gemm)
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


def build(name):
    import torchvision
    torch.manual_seed(43)
    if name == "qkv":
        return Qkv(), torch.randn(1, 32, 64)
    if name == "qkv_gemm":
        return QkvGemm(), torch.randn(5, 48)
    if name == "googlenet":
        return (torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True),
                torch.randn(1, 3, 224, 224))
    if name == "inception_v3":
        return (torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=True),
                torch.randn(1, 3, 299, 299))
    raise SystemExit("concat_models.py: unknown model %s" % name)


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or ["qkv", "qkv_gemm", "googlenet"]
    os.makedirs(out, exist_ok=True)
    for n in names:
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
