#!/usr/bin/python3
"""detector_export.py OUTDIR - torchvision's ssdlite320_mobilenet_v3_large
(random weights, seeded) exported by PyTorch at opset 17 with a seeded
image, for tests/parts/39-runtime-shapes.sh (PZ_TEST_FULL=1): its
post-processing has an If on a run-time condition whose branches differ
in shape (batched_nms), a Concat of 90 inputs, full_like and Splits on
run-time shapes. Writes OUTDIR/ssdlite.onnx and ssdlite.in0.pb."""
import os
import sys

import torch
import torchvision
from onnx import numpy_helper


class Det(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        r = self.m([x[0]])[0]
        return r["boxes"], r["scores"], r["labels"]


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    net = Det(torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None).eval())
    x = torch.rand((1, 3, 320, 320), generator=torch.Generator().manual_seed(1234))
    with torch.no_grad():
        torch.onnx.export(net, (x,), os.path.join(out, "ssdlite.onnx"), input_names=["in0"],
                          output_names=["boxes", "scores", "labels"], opset_version=17,
                          do_constant_folding=True)
    with open(os.path.join(out, "ssdlite.in0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "in0").SerializeToString())


if __name__ == "__main__":
    main()
