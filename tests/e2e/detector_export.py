#!/usr/bin/python3
"""detector_export.py OUTDIR [NAME] - a torchvision detector (random
weights, seeded) exported by PyTorch at opset 17 with a seeded image, for
tests/parts/39-runtime-shapes.sh (PZ_TEST_FULL=1). NAME ssdlite (the
default): ssdlite320_mobilenet_v3_large, whose post-processing has an If
on a run-time condition whose branches differ in shape (batched_nms), a
Concat of 90 inputs, full_like and Splits on run-time shapes; fasterrcnn:
fasterrcnn_mobilenet_v3_large_320_fpn, whose RoI heads add squeeze(1) as
an If on a dim fixed at every run, RoiAlign, ScatterElements and Gemm on
the run's proposals (weights scaled to give 18 detections); maskrcnn and
keypointrcnn: maskrcnn_resnet50_fpn and keypointrcnn_resnet50_fpn on a
256x256 image, 50 proposals, 8 detections (weights scaled), with the pasted
masks, or the keypoints and their scores, as outputs too. RoiAlign set to
PyTorch's rule (roi_align_as_torch). Writes OUTDIR/NAME.onnx, NAME.in0.pb
and a second image NAME.in0_b.pb; with DET_TORCH=1 in the environment,
PyTorch's outputs NAME.torchI.pb and NAME.torch_bI.pb too."""
import os
import sys

import onnx
import torch
import torchvision
from onnx import helper, numpy_helper

OUTS = {"maskrcnn": ["masks"], "keypointrcnn": ["keypoints", "keypoints_scores"]}


class Det(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        r = self.m([x[0]])[0]
        extra = tuple(r[k] for k in ("masks", "keypoints", "keypoints_scores") if k in r)
        return (r["boxes"], r["scores"], r["labels"]) + extra


def rcnn(ctor):
    # a 256x256 image kept at that size, 50 proposals, at most 8 boxes
    return lambda **kw: ctor(min_size=256, max_size=256, rpn_pre_nms_top_n_test=200,
                             rpn_post_nms_top_n_test=50, box_detections_per_img=8, **kw)


def scale_fpn(m, fpn, cls):
    """Scales an R-CNN's FPN convs (weights and biases) by fpn and its class
    logits' weights by cls: seeded weights leave features too small or too
    large for distinct boxes (the callers say which)."""
    with torch.no_grad():
        for c in m.backbone.fpn.modules():
            if isinstance(c, torch.nn.Conv2d):
                c.weight.mul_(fpn)
                c.bias.mul_(fpn)
        m.roi_heads.box_predictor.cls_score.weight.mul_(cls)


def roi_align_as_torch(path):
    """torchvision 0.14 exports roi_align(aligned=False) by its opset-11
    rule, no coordinate_transformation_mode: at opset 16+ RoiAlign then
    takes half_pixel (aligned=True), shifting every sample by half a pixel
    from what PyTorch computes; output_half_pixel is PyTorch's rule"""
    m = onnx.load(path)
    for n in m.graph.node:
        if n.op_type == "RoiAlign" and not any(a.name == "coordinate_transformation_mode"
                                               for a in n.attribute):
            n.attribute.append(helper.make_attribute("coordinate_transformation_mode",
                                                     "output_half_pixel"))
    onnx.save(m, path)


def main():
    out = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "ssdlite"
    make = {"ssdlite": torchvision.models.detection.ssdlite320_mobilenet_v3_large,
            "fasterrcnn": torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn,
            "maskrcnn": rcnn(torchvision.models.detection.maskrcnn_resnet50_fpn),
            "keypointrcnn": rcnn(torchvision.models.detection.keypointrcnn_resnet50_fpn)}
    torch.manual_seed(0)
    m = make[name](weights=None, weights_backbone=None).eval()
    size = 256 if name in ("maskrcnn", "keypointrcnn") else 320
    outs = ["boxes", "scores", "labels"] + OUTS.get(name, [])
    if name == "fasterrcnn":
        # seeded weights give FPN features near 1e-8 (every RoI alike) and no
        # score over the 0.05 threshold: the FPN's convs scaled by 1e4 and
        # the class logits by 2 give 18 boxes of distinct scores (gaps
        # >= 1e-5), so the post-processing runs on K > 0 rows
        scale_fpn(m, 1e4, 2.0)
    if name in ("maskrcnn", "keypointrcnn"):
        # ResNet-50's seeded FPN features near 250 saturate the box deltas
        # (boxes 0.04 wide): the FPN's convs scaled by 0.1 (two in a row:
        # features near 2.5) and the class logits by 30 give 8 boxes of
        # scores >= 8e-4 apart
        scale_fpn(m, 0.1, 30.0)
    net = Det(m).eval()
    # a second image: another count of boxes from the same built program
    for suffix, seed in (("", 1234), ("_b", 4321)):
        x = torch.rand((1, 3, size, size), generator=torch.Generator().manual_seed(seed))
        if not suffix:
            with torch.no_grad():
                torch.onnx.export(net, (x,), os.path.join(out, name + ".onnx"), input_names=["in0"],
                                  output_names=outs, opset_version=17, do_constant_folding=True)
            roi_align_as_torch(os.path.join(out, name + ".onnx"))
        with open(os.path.join(out, name + ".in0%s.pb" % suffix), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy(), "in0").SerializeToString())
        if os.environ.get("DET_TORCH"):
            with torch.no_grad():
                ys = net(x)
            for i, y in enumerate(ys):
                with open(os.path.join(out, "%s.torch%s%d.pb" % (name, suffix, i)), "wb") as f:
                    f.write(numpy_helper.from_array(y.numpy(), outs[i]).SerializeToString())


if __name__ == "__main__":
    main()
