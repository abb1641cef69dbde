#!/usr/bin/python3
"""runtime_shapes_torch.py OUTDIR - PyTorch exports whose shapes come from an
input at run time, for tests/parts/39-runtime-shapes.sh (issue 39: inputs
that shape an output).

Each model is exported by torch.onnx (opset 13) and written with its inputs
for several run-time values, and PyTorch's outputs as references:
OUTDIR/NAME.onnx, NAME.vV.inK.pb, NAME.vV.refK.pb. A line per model is
appended to OUTDIR/cases.txt: `NAME N_INPUTS N_OUTPUTS N_VALUES`.
  reshape   x.reshape(n, -1) (Reshape of Concat(Unsqueeze(n), -1)), then
            Softmax, times 2, the first k columns (Slice with ends from
            Unsqueeze(k)) and the column sums (ReduceSum of a run-time shape)
  slice3    x[a:b, :, c::2] on a rank-3 tensor (starts and ends from
            inputs), then its mean over the last axis
  nz_reshape  torch.nonzero(x > 0).reshape(2, -1) (a Reshape of a run-time
            shape to two dims), its row sums; an even count of positives,
            none included
  expand    x.expand(n, -1) (Expand of a shape from an input: no compile-time
            bound, allocated at run time), then times 2 and its column sums
  tile      x.repeat(r, 1) (Tile), plus a static row (a broadcast checked
            at run time)
  arange    torch.arange(n) (Range) and torch.zeros(n) + 1 (ConstantOfShape)
  pad       F.pad(x, (p, p)) with p from an input (Pad), then exp
  interp    F.interpolate(x, size=(h, w)) (Resize with sizes from inputs)
  zeros     torch.zeros(n, m) (ConstantOfShape of a two-dim shape) plus a
            static row of 4 (a broadcast checked at run time; m is 4 or 1)
  reshape_add  x.reshape(n, m) plus a static row of 4: a run-time Reshape
            broadcast against a static operand
These run on growing sizes (the buffers regrow) and back down again.
Bad values for the built program (exit 2 naming the layer) are written too:
reshape.bad.in1.pb (n = 5 does not divide 24 elements), NAME.bad.inK.pb (a
negative size) for expand, tile, arange, pad and interp, expand.huge.in1.pb
(n = 2^50: more bytes than the host has), and values that do not
broadcast with the static row: zeros.bcast.in1.pb (m = 3) and
reshape_add.bcast.in{1,2}.pb (12 x 2).
Prints nothing when torch is not installed (the cases are then not run).
"""
import os
import sys

import numpy as np
from onnx import numpy_helper

try:
    import torch
except ImportError:
    sys.exit(0)


class Reshape(torch.nn.Module):
    def forward(self, x, n, k):
        y = x.reshape(n, -1)
        z = torch.softmax(y, dim=1) * 2.0
        return z[:, :k], y.sum(dim=0)


class Slice3(torch.nn.Module):
    def forward(self, x, a, b, c):
        y = x[a:b, :, c::2]
        return y, y.mean(dim=2)


class NzReshape(torch.nn.Module):
    def forward(self, x):
        y = torch.nonzero(x > 0).reshape(2, -1)
        return y, y.sum(dim=1)


class Expand(torch.nn.Module):
    def forward(self, x, n):
        y = x.expand(n, -1)
        return y * 2.0, y.sum(dim=0)


class Repeat(torch.nn.Module):
    def forward(self, x, r):
        y = x.repeat(r, 1)
        return y, y + torch.arange(4, dtype=torch.float32)


class Arange(torch.nn.Module):
    def forward(self, n):
        return torch.arange(n), torch.zeros(n) + 1.0


class Pad(torch.nn.Module):
    def forward(self, x, p):
        return (torch.exp(torch.nn.functional.pad(x, (p, p))),)


class Interp(torch.nn.Module):
    def forward(self, x, h, w):
        return (torch.nn.functional.interpolate(x, size=(h, w)),)


class Zeros(torch.nn.Module):
    def forward(self, n, m):
        return (torch.zeros(n, m) + torch.arange(4, dtype=torch.float32),)


class ReshapeAdd(torch.nn.Module):
    def forward(self, x, n, m):
        return (x.reshape(n, m) + torch.arange(4, dtype=torch.float32),)


def even_positives(x):
    """x with an even count of positive elements (the first one flipped)."""
    if int((x > 0).sum()) % 2:
        x = x.clone()
        x.view(-1)[0] = -x.view(-1)[0] if x.view(-1)[0] != 0 else 1.0
    return x


def save(path, arr):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(arr)).SerializeToString())


def case(out, name, model, inputs, values):
    """inputs: the first run's tensors (for the export); values: one list of
    tensors per run."""
    path = os.path.join(out, name + ".onnx")
    names = ["in%d" % i for i in range(len(inputs))]
    with torch.no_grad():
        torch.onnx.export(model, tuple(inputs), path, input_names=names, opset_version=13)
        n_out = 0
        for v, ins in enumerate(values):
            refs = model(*ins)
            n_out = len(refs)
            for k, t in enumerate(ins):
                save(os.path.join(out, "%s.v%d.in%d.pb" % (name, v, k)), t.numpy())
            for k, r in enumerate(refs):
                save(os.path.join(out, "%s.v%d.ref%d.pb" % (name, v, k)), r.numpy())
    with open(os.path.join(out, "cases.txt"), "a") as f:
        f.write("%s %d %d %d\n" % (name, len(inputs), n_out, len(values)))


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    i64 = lambda v: torch.tensor(v, dtype=torch.int64)
    x = torch.randn(4, 6)
    case(out, "reshape", Reshape(), [x, i64(3), i64(5)],
         [[x, i64(3), i64(5)], [x, i64(2), i64(12)], [x, i64(12), i64(1)], [x, i64(24), i64(1)]])
    save(os.path.join(out, "reshape.bad.in1.pb"), np.array(5, dtype=np.int64))
    x3 = torch.randn(5, 3, 7)
    case(out, "slice3", Slice3(), [x3, i64(1), i64(4), i64(2)],
         [[x3, i64(1), i64(4), i64(2)], [x3, i64(0), i64(5), i64(0)], [x3, i64(-2), i64(100), i64(-3)]])

    xs = [even_positives(torch.randn(4, 5)), even_positives(torch.randn(4, 5)),
          -torch.ones(4, 5)]
    case(out, "nz_reshape", NzReshape(), [xs[0]], [[v] for v in xs])

    xe = torch.randn(1, 4)
    case(out, "expand", Expand(), [xe, i64(3)], [[xe, i64(n)] for n in (3, 7, 40, 2, 0)])
    case(out, "tile", Repeat(), [xe, i64(2)], [[xe, i64(r)] for r in (2, 5, 33, 1)])
    case(out, "arange", Arange(), [i64(4)], [[i64(n)] for n in (4, 9, 100, 0, 3)])
    xp = torch.randn(2, 5)
    case(out, "pad", Pad(), [xp, i64(1)], [[xp, i64(p)] for p in (1, 3, 10, 0)])
    xi = torch.randn(1, 2, 3, 4)
    case(out, "interp", Interp(), [xi, i64(6), i64(8)],
         [[xi, i64(h), i64(w)] for h, w in ((6, 8), (3, 4), (20, 30), (2, 2))])
    case(out, "zeros", Zeros(), [i64(3), i64(4)],
         [[i64(n), i64(m)] for n, m in ((3, 4), (7, 1), (0, 4), (50, 4))])
    case(out, "reshape_add", ReshapeAdd(), [x, i64(6), i64(4)],
         [[x, i64(n), i64(m)] for n, m in ((6, 4), (24, 1), (-1, 4), (24, -1))])
    save(os.path.join(out, "zeros.bcast.in1.pb"), np.array(3, dtype=np.int64))
    save(os.path.join(out, "reshape_add.bcast.in1.pb"), np.array(12, dtype=np.int64))
    save(os.path.join(out, "reshape_add.bcast.in2.pb"), np.array(2, dtype=np.int64))
    for name, k, v in (("expand", 1, -2), ("tile", 1, -1), ("arange", 0, -3), ("pad", 1, -3),
                       ("interp", 1, -4)):
        save(os.path.join(out, "%s.bad.in%d.pb" % (name, k)), np.array(v, dtype=np.int64))
    # an absurd size: 2^50 rows of 4 floats, above any host's memory
    save(os.path.join(out, "expand.huge.in1.pb"), np.array(1 << 50, dtype=np.int64))


if __name__ == "__main__":
    main()
