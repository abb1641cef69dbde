#!/usr/bin/python3
"""lstm_model.py MODELDIR - the peer benchmark's recurrent network: a seeded
PyTorch nn.LSTM (input 64, hidden 256, 2 layers) over 100 steps at batch 1,
exported to ONNX (opset 14) as MODELDIR/lstm2_h256.onnx with a seeded input
MODELDIR/lstm2_h256.input.pb ([100, 1, 64])."""
import os
import sys
import warnings

import torch
from onnx import numpy_helper

warnings.filterwarnings("ignore")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(64, 256, 2)

    def forward(self, x):
        return self.lstm(x)[0]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(11)
    net = Net().eval()
    x = torch.randn(100, 1, 64)
    onnx_path = os.path.join(out, "lstm2_h256.onnx")
    torch.onnx.export(net, (x,), onnx_path + ".tmp", input_names=["x"], output_names=["y"],
                      opset_version=14)
    with open(os.path.join(out, "lstm2_h256.input.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "x").SerializeToString())
    os.replace(onnx_path + ".tmp", onnx_path)


if __name__ == "__main__":
    main()
