# blaze_prelu.py OUT_DIR - a BlazeFace-style net with PReLU acts for the PRelu
# epilogue figures (bench/RESULTS.md, 'PRelu fused into the conv'): writes
# OUT_DIR/blaze_prelu.onnx and blaze_prelu.in.pb. Run with /usr/bin/python3 (torch 1.13).
import sys, torch, torch.nn as nn, numpy as np
from onnx import numpy_helper
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self, c, m, s=1):
        super().__init__()
        self.s, self.c, self.m = s, c, m
        self.dw = nn.Conv2d(c, c, 5, stride=s, padding=2 if s == 1 else 0, groups=c)
        self.pw = nn.Conv2d(c, m, 1)
        self.act = nn.PReLU(m)
        self.pool = nn.MaxPool2d(s, s) if s == 2 else None
    def forward(self, x):
        h = nn.functional.pad(x, (1, 2, 1, 2)) if self.s == 2 else x
        y = self.pw(self.dw(h))
        if self.pool is not None: x = self.pool(x)
        if self.m > self.c: x = nn.functional.pad(x, (0, 0, 0, 0, 0, self.m - self.c))
        return self.act(y + x)
L = [nn.Conv2d(3, 24, 5, stride=2, padding=2), nn.PReLU(24)]
c = 24
for m, s in [(24,1),(28,1),(32,2),(36,1),(42,1),(48,2),(56,1),(64,1),(72,1),(80,1),(88,1),(96,2),(96,1),(96,1),(96,1),(96,1)]:
    L.append(Block(c, m, s)); c = m
net = nn.Sequential(*L).eval()
for a in net.modules():
    if isinstance(a, nn.PReLU): a.weight.data.uniform_(0.0, 0.5)
x = torch.randn(1, 3, 128, 128)
torch.onnx.export(net, x, sys.argv[1] + "/blaze_prelu.onnx", opset_version=14, input_names=["x"], output_names=["y"])
open(sys.argv[1] + "/blaze_prelu.in.pb", "wb").write(numpy_helper.from_array(x.numpy(), "x").SerializeToString())
