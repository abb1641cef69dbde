#!/usr/bin/python3
"""maxshape.py OUTDIR - writes the models of tests/parts/40-maxshape.sh.

PyTorch 1.13 modules exported with dynamic_axes (symbolic dims left open),
with seeded inputs at several sizes:
  cnn.onnx      conv, BatchNorm, relu, max and average pool, flatten, linear,
                softmax over an open "batch"; cnn_N.pb at N = 1, 3, 8, 9
  mlp.onnx      linear, LayerNormalization (opset 17), relu, linear over an
                open "sequence" [1, S, 16]; mlp_N.pb at N = 1, 3, 8, 9
  two.onnx      open "batch" and "sequence" [B, S, 16] through a Reshape to
                [B * S, 16], Gemm, Softmax and back; two_B_S.pb at (3, 5), (4, 1)
  last.onnx     the last step of an open "sequence" two ways: Gather(-1) and a
                Slice [-1:] (its start, S - 1, is a param the program computes);
                outputs y, z; last_N.pb at N = 1, 3, 8
  tail2.onnx    a Slice [-2:] over an open sequence: 1 long at S = 1, 2 after
                (a clamp, not a product of the open dims: refused)
  pos.onnx      a learned positional embedding sliced to an open "sequence"
                (pos[:, :S], folded to a constant the program reads the start
                of), open "batch" too; pos_B_S.pb at (1, 1), (3, 7), (2, 32)
  mask.onnx     a causal mask [S, S] folded from an open sequence: not the
                start of the one at the bound (its rows move): refused
  pinned.onnx   an open batch that a Reshape constant [1, -1] pins (refused)
  strided.onnx  a Conv1d of stride 2 over an open length (its output length is
                a floor division, not a product of the open dims: refused)
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
torch.manual_seed(40)
rng = np.random.default_rng(40)


def save(x, path):
    onnx.save_tensor(numpy_helper.from_array(x.astype(np.float32), "x"), path)


def export(net, x, name, opset, axes):
    torch.onnx.export(net.eval(), x, f"{d}/{name}.onnx", opset_version=opset,
                      input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": axes, "y": axes} if axes else None)


class CNN(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 16, 3, 1, 1)
        s.b1 = nn.BatchNorm2d(16)
        s.c2 = nn.Conv2d(16, 32, 3, 2, 1)
        s.b2 = nn.BatchNorm2d(32)
        s.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(s, x):
        x = nn.functional.max_pool2d(torch.relu(s.b1(s.c1(x))), 2)
        x = nn.functional.avg_pool2d(torch.relu(s.b2(s.c2(x))), 2)
        return torch.softmax(s.fc(torch.flatten(x, 1)), 1)


class MLP(nn.Module):
    def __init__(s):
        super().__init__()
        s.l1 = nn.Linear(16, 32)
        s.ln = nn.LayerNorm(32)
        s.l2 = nn.Linear(32, 8)

    def forward(s, x):
        return s.l2(torch.relu(s.ln(s.l1(x))))


class Two(nn.Module):
    def __init__(s):
        super().__init__()
        s.l = nn.Linear(16, 8)

    def forward(s, x):
        b, t, _ = x.shape
        return torch.softmax(s.l(x.reshape(-1, 16)), -1).reshape(b, t, 8)


class Pinned(nn.Module):
    def __init__(s):
        super().__init__()
        s.fc = nn.Linear(3 * 4 * 4, 5)

    def forward(s, x):
        return s.fc(x.view(1, -1))


class Strided(nn.Module):
    def __init__(s):
        super().__init__()
        s.c = nn.Conv1d(4, 4, 3, stride=2, padding=1)

    def forward(s, x):
        return s.c(x)


class Last(nn.Module):
    def __init__(s, tail):
        super().__init__()
        s.tail = tail
        s.l = nn.Linear(16, 8)

    def forward(s, x):
        return s.l(x[:, -1]), x[:, -s.tail:] * 2


class Pos(nn.Module):
    def __init__(s):
        super().__init__()
        s.pos = nn.Parameter(torch.randn(1, 32, 16))
        s.l = nn.Linear(16, 16)
        s.ln = nn.LayerNorm(16)

    def forward(s, x):
        return s.ln(torch.relu(s.l(x + s.pos[:, :x.shape[1]])))


class Mask(nn.Module):
    def forward(s, x):
        n = x.shape[1]
        return x @ torch.triu(torch.ones(n, n), 1)


cnn = CNN()
for m in cnn.modules():
    if isinstance(m, nn.BatchNorm2d):
        m.running_mean.uniform_(-0.5, 0.5)
        m.running_var.uniform_(0.5, 2)
export(cnn, torch.randn(2, 3, 32, 32), "cnn", 13, {0: "batch"})
export(MLP(), torch.randn(1, 5, 16), "mlp", 17, {1: "sequence"})
export(Two(), torch.randn(2, 5, 16), "two", 13, {0: "batch", 1: "sequence"})
torch.onnx.export(Pinned().eval(), torch.randn(1, 3, 4, 4), f"{d}/pinned.onnx", opset_version=13,
                  input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "batch"}})
torch.onnx.export(Last(1).eval(), torch.randn(1, 5, 16), f"{d}/last.onnx", opset_version=13,
                  input_names=["x"], output_names=["y", "z"], dynamic_axes={"x": {1: "sequence"}})
torch.onnx.export(Last(2).eval(), torch.randn(1, 5, 16), f"{d}/tail2.onnx", opset_version=13,
                  input_names=["x"], output_names=["y", "z"], dynamic_axes={"x": {1: "sequence"}})
export(Pos(), torch.randn(2, 5, 16), "pos", 17, {0: "batch", 1: "sequence"})
export(Mask(), torch.randn(1, 5, 5), "mask", 14, {1: "sequence", 2: "sequence"})
export(Strided(), torch.randn(1, 4, 8), "strided", 13, {2: "length"})
for n in (1, 3, 8, 9):
    save(rng.standard_normal((n, 3, 32, 32)), f"{d}/cnn_{n}.pb")
    save(rng.standard_normal((1, n, 16)), f"{d}/mlp_{n}.pb")
    save(rng.standard_normal((1, n, 16)), f"{d}/last_{n}.pb")
for b, s in ((3, 5), (4, 1)):
    save(rng.standard_normal((b, s, 16)), f"{d}/two_{b}_{s}.pb")
for b, s in ((1, 1), (3, 7), (2, 32)):
    save(rng.standard_normal((b, s, 16)), f"{d}/pos_{b}_{s}.pb")
