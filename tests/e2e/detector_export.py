#!/usr/bin/python3
"""detector_export.py OUTDIR [NAME] - a torchvision detector (random
weights, seeded) exported by PyTorch at opset 17 with a seeded image, for
tests/parts/39-runtime-shapes.sh (PZ_TEST_FULL=1). NAME ssdlite (the
default): ssdlite320_mobilenet_v3_large, whose post-processing has an If
on a run-time condition whose branches differ in shape (batched_nms), a
Concat of 90 inputs, full_like and Splits on run-time shapes; fasterrcnn:
fasterrcnn_mobilenet_v3_large_320_fpn, whose RoI heads add squeeze(1) as
an If on a dim fixed at every run, RoiAlign, ScatterElements and Gemm on
the run's proposals. Writes OUTDIR/NAME.onnx and NAME.in0.pb."""
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
    name = sys.argv[2] if len(sys.argv) > 2 else "ssdlite"
    make = {"ssdlite": torchvision.models.detection.ssdlite320_mobilenet_v3_large,
            "fasterrcnn": torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn}
    torch.manual_seed(0)
    net = Det(make[name](weights=None, weights_backbone=None).eval())
    x = torch.rand((1, 3, 320, 320), generator=torch.Generator().manual_seed(1234))
    with torch.no_grad():
        torch.onnx.export(net, (x,), os.path.join(out, name + ".onnx"), input_names=["in0"],
                          output_names=["boxes", "scores", "labels"], opset_version=17,
                          do_constant_folding=True)
    with open(os.path.join(out, name + ".in0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "in0").SerializeToString())


if __name__ == "__main__":
    main()
