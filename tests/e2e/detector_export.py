#!/usr/bin/python3
"""detector_export.py OUTDIR [NAME] - a torchvision detector (random
weights, seeded) exported by PyTorch at opset 17 with a seeded image, for
tests/parts/39-runtime-shapes.sh (PZ_TEST_FULL=1). NAME ssdlite (the
default): ssdlite320_mobilenet_v3_large, whose post-processing has an If
on a run-time condition whose branches differ in shape (batched_nms), a
Concat of 90 inputs, full_like and Splits on run-time shapes; fasterrcnn:
fasterrcnn_mobilenet_v3_large_320_fpn, whose RoI heads add squeeze(1) as
an If on a dim fixed at every run, RoiAlign, ScatterElements and Gemm on
the run's proposals (weights scaled to give 18 detections). Writes
OUTDIR/NAME.onnx, NAME.in0.pb and a second image NAME.in0_b.pb."""
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
    m = make[name](weights=None, weights_backbone=None).eval()
    if name == "fasterrcnn":
        # seeded weights give FPN features near 1e-8 (every RoI alike) and no
        # score over the 0.05 threshold: the FPN's convs scaled by 1e4 and
        # the class logits by 2 give 18 boxes of distinct scores (gaps
        # >= 1e-5), so the post-processing runs on K > 0 rows
        with torch.no_grad():
            for c in m.backbone.fpn.modules():
                if isinstance(c, torch.nn.Conv2d):
                    c.weight.mul_(1e4)
                    c.bias.mul_(1e4)
            m.roi_heads.box_predictor.cls_score.weight.mul_(2.0)
    net = Det(m)
    x = torch.rand((1, 3, 320, 320), generator=torch.Generator().manual_seed(1234))
    with torch.no_grad():
        torch.onnx.export(net, (x,), os.path.join(out, name + ".onnx"), input_names=["in0"],
                          output_names=["boxes", "scores", "labels"], opset_version=17,
                          do_constant_folding=True)
    with open(os.path.join(out, name + ".in0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "in0").SerializeToString())
    # a second image: another count of boxes from the same built program
    x2 = torch.rand((1, 3, 320, 320), generator=torch.Generator().manual_seed(4321))
    with open(os.path.join(out, name + ".in0_b.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x2.numpy(), "in0").SerializeToString())


if __name__ == "__main__":
    main()
