#!/usr/bin/python3
"""torch_models.py OUTDIR - seeded PyTorch nn.LSTM and nn.GRU models (1 and
2 layers, bidirectional, batch_first, with and without initial states)
exported to ONNX (opset 14), with their inputs and PyTorch's outputs:
OUTDIR/NAME.onnx, NAME.in_K.pb, NAME.torch_K.pb. Prints one line per
model: NAME, the number of inputs and of outputs."""
import os
import sys
import warnings

import numpy as np
import torch
from onnx import numpy_helper

warnings.filterwarnings("ignore")
torch.manual_seed(7)

# name: (cell, input, hidden, layers, bidirectional, batch_first, states given)
MODELS = {
    "lstm1": ("LSTM", 8, 20, 1, False, False, False),
    "lstm2_bi": ("LSTM", 8, 20, 2, True, False, False),
    "lstm2_bf": ("LSTM", 8, 33, 2, False, True, True),
    "lstm1_bi_bf": ("LSTM", 5, 16, 1, True, True, True),
    "gru1": ("GRU", 8, 17, 1, False, False, False),
    "gru2_bi_bf": ("GRU", 8, 20, 2, True, True, False),
    "gru2_h0": ("GRU", 6, 24, 2, False, False, True),
}
SEQ, BATCH = 6, 3


class Net(torch.nn.Module):
    def __init__(self, cell, i, h, layers, bi, bf):
        super().__init__()
        self.rnn = getattr(torch.nn, cell)(i, h, layers, bidirectional=bi, batch_first=bf)
        self.lstm = cell == "LSTM"

    def forward(self, x, *states):
        if self.lstm:
            y, (hn, cn) = self.rnn(x, tuple(states) if states else None)
            return y, hn, cn
        y, hn = self.rnn(x, states[0] if states else None)
        return y, hn


def save(path, a, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(a), name).SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (cell, i, h, layers, bi, bf, st) in MODELS.items():
        net = Net(cell, i, h, layers, bi, bf).eval()
        x = torch.randn(BATCH, SEQ, i) if bf else torch.randn(SEQ, BATCH, i)
        ins = [x]
        if st:
            nd = 2 if bi else 1
            ins.append(torch.randn(layers * nd, BATCH, h))
            if cell == "LSTM": ins.append(torch.randn(layers * nd, BATCH, h))
        names = ["x", "h0", "c0"][:len(ins)]
        with torch.no_grad():
            outs = net(*ins)
        onames = ["y", "hn", "cn"][:len(outs)]
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(net, tuple(ins), path, input_names=names, output_names=onames,
                          opset_version=14)
        for k, (t, n) in enumerate(zip(ins, names)):
            save(os.path.join(out, "%s.in_%d.pb" % (name, k)), t.numpy(), n)
        for k, (t, n) in enumerate(zip(outs, onames)):
            save(os.path.join(out, "%s.torch_%d.pb" % (name, k)), t.numpy(), n)
        print(name, len(ins), len(outs))


if __name__ == "__main__":
    main()
