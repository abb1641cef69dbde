#!/usr/bin/python3
"""dynamic_torch.py OUTDIR - PyTorch post-processing after a run-time shape,
for tests/parts/40-dynamic.sh (issue 40: dynamic regions).

Each model is exported by torch.onnx (opset 13) and run on inputs that give
different run-time sizes, an empty one included; PyTorch's outputs are the
case's NAME.npK.pb. Lines are appended to OUTDIR/cases.txt as dynamic.py
writes them (`NAME N_INPUTS N_OUTPUTS MODE N_REFS [close]`; `close`: the
outputs agree to a tolerance, not bitwise: exp and float sums differ in the
last bits between implementations). The first input of a model is built
(mode run), the others only run (mode cli), which keeps the ASan run short.
  det       scores > t selects detections, topk(min(K, n)) of their scores
            (k from Shape and Gather at run time), Gather of their boxes,
            Concat of boxes and Unsqueeze'd scores
  boxes     the rows of boxes over a score: Slice on the fixed axis (corners,
            every other column) and on the run-time one ([1:]), Sub, Concat
  nz_sum    torch.nonzero(x).reshape(-1): ReduceSum, ReduceMax
  nz_count  the same, ReduceSum and one keeping the dim, with no nonzero
  rows      x[scores > t] (rows of classes): Softmax, ArgMax, ReduceSum over
            the rows, ReduceMax keeping the dim
  expand_tile  those rows repeated (Tile), the scores expanded to 3 rows
            and each row's max to its 5 columns (Expand)
  linear    those rows times a weight (MatMul, a constant B), and r^T r (a
            run-time K)
  logic     the scores over 0.5 compared again (Greater, And, Not), Where,
            and selected again (a NonZero of a run-time shape)
  ms_soft   masked_select then Softmax
  uq_cum    unique then CumSum and ArgMax
Prints nothing when torch is not installed (the cases are then not run).
"""
import os
import sys
import warnings

import numpy as np
from onnx import numpy_helper

try:
    import torch
except ImportError:
    sys.exit(0)

warnings.filterwarnings("ignore")
out = sys.argv[1]
rng = np.random.default_rng(41)
cases = []


class Det(torch.nn.Module):
    def forward(self, scores, boxes):
        m = scores > 0.5
        s, b = scores[m], boxes[m]
        k = torch.clamp(torch._shape_as_tensor(s)[0], max=3)   # min(K, n), at run time
        v, i = s.topk(k)
        return v, b[i], torch.cat([b[i], v.unsqueeze(1)], 1).unsqueeze(0)


class Boxes(torch.nn.Module):
    def forward(self, scores, boxes):
        b = boxes[scores > 0.5]
        wh = b[:, 2:] - b[:, :2]
        return wh, b[1:, ::2], torch.cat([b[:, :1], wh], 1)


class ExpandTile(torch.nn.Module):
    def forward(self, scores, cls):
        r, s = cls[scores > 0.5], scores[scores > 0.5]
        return (r.repeat(1, 2), s.unsqueeze(0).expand(3, -1),
                r.max(1, keepdim=True)[0].expand(-1, 5))


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.from_numpy(rng.standard_normal((5, 3)).astype(np.float32)))

    def forward(self, scores, cls):
        r = cls[scores > 0.5]
        return torch.matmul(r, self.w), torch.matmul(r.t(), r)


class Logic(torch.nn.Module):
    def forward(self, scores):
        s = scores[scores > 0.5]
        keep = (s > 0.7) & ~(s > 0.9)
        return torch.where(keep, s, -s), keep, s[s > 0.7]


class NzSum(torch.nn.Module):
    def forward(self, x):
        i = torch.nonzero(x).reshape(-1).float()
        return i.sum(), i.max()


class NzCount(torch.nn.Module):
    def forward(self, x):
        i = torch.nonzero(x).reshape(-1).float()
        return i.sum(), i.sum(0, keepdim=True)


class Rows(torch.nn.Module):
    def forward(self, scores, cls):
        r = cls[scores > 0.5]
        return torch.softmax(r, -1), r.argmax(1), r.sum(0), r.max(1, keepdim=True)[0]


class MsSoft(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(torch.masked_select(x, x > 0), 0)


class UqCum(torch.nn.Module):
    def forward(self, x):
        u = torch.unique(x)
        return torch.cumsum(u, 0), torch.argmax(u)


def write(path, x, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(x), name).SerializeToString())


def case(name, model, inputs_list, close=False):
    """One export (at the first inputs), one case per inputs."""
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, tuple(torch.from_numpy(x) for x in inputs_list[0]), path,
                      opset_version=13)
    for j, inputs in enumerate(inputs_list):
        cname = "%s_%d" % (name, j)
        if j:
            os.link(path, os.path.join(out, cname + ".onnx"))
        else:
            os.rename(path, os.path.join(out, cname + ".onnx"))
            path = os.path.join(out, cname + ".onnx")
        with torch.no_grad():
            refs = model(*(torch.from_numpy(x) for x in inputs))
        refs = refs if isinstance(refs, tuple) else (refs,)
        for k, x in enumerate(inputs):
            write(os.path.join(out, "%s.in%d.pb" % (cname, k)), x, "in%d" % k)
        for k, r in enumerate(refs):
            write(os.path.join(out, "%s.np%d.pb" % (cname, k)), r.numpy(), "np%d" % k)
        cases.append("%s %d %d %s %d%s" % (cname, len(inputs), len(refs), "cli" if j else "run",
                                           len(refs), " close" if close else ""))


def scores(n, above):
    """n scores, `above` of them over 0.5, distinct (topk's ties aside)"""
    s = np.concatenate([0.55 + 0.4 * rng.permutation(above) / max(above, 1),
                        0.45 * rng.random(n - above)]).astype(np.float32)
    return rng.permutation(s)


boxes = rng.random((12, 4)).astype(np.float32)
case("det", Det(), [[scores(12, 7), boxes], [scores(12, 2), boxes], [scores(12, 0), boxes]])
case("boxes", Boxes(), [[scores(12, 5), boxes], [scores(12, 1), boxes], [scores(12, 0), boxes]])
x = rng.standard_normal((3, 4)).astype(np.float32)
x[rng.random(x.shape) < 0.5] = 0
y = np.zeros((3, 4), np.float32)
y[1, 2] = 1
case("nz_sum", NzSum(), [[x], [y]])
case("nz_count", NzCount(), [[x], [np.zeros((3, 4), np.float32)]])
cls = rng.standard_normal((10, 5)).astype(np.float32)
case("rows", Rows(), [[scores(10, 6), cls], [scores(10, 1), cls], [scores(10, 0), cls]],
     close=True)
case("expand_tile", ExpandTile(), [[scores(10, 4), cls], [scores(10, 0), cls]])
case("linear", Linear(), [[scores(10, 6), cls], [scores(10, 1), cls], [scores(10, 0), cls]],
     close=True)
case("logic", Logic(), [[scores(12, 8)], [scores(12, 0)]])
case("ms_soft", MsSoft(), [[rng.standard_normal((3, 5)).astype(np.float32)],
                           [-np.abs(rng.standard_normal((3, 5))).astype(np.float32)]], close=True)
case("uq_cum", UqCum(), [[rng.choice([0.5, -1.0, 2.0, 3.5, 7.25], (9,)).astype(np.float32)],
                         [np.full((9,), 2.0, np.float32)]], close=True)

with open(os.path.join(out, "cases.txt"), "a") as f:
    f.write("".join(c + "\n" for c in cases))
