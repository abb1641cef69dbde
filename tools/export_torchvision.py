#!/usr/bin/python3
"""export_torchvision.py OUTDIR [NAME...] - the six torchvision networks as ONNX.

For each NAME (default: all of resnet18 resnet50 vgg16 vgg19 alexnet
mobilenet_v2; also, by name only, the other torchvision classifiers in MORE,
whose ops the six do not use: grouped convs, 5x5 depthwise, squeeze-excite,
HardSwish, channel shuffle, Concat) writes
    OUTDIR/NAME.onnx        random weights (torch.manual_seed(0)), eval mode,
                            input "input" [1,3,224,224], output "output",
                            opset 13, via torch.onnx.export
    OUTDIR/NAME.input.pb    a fixed input (seeded), a serialized onnx.TensorProto
    OUTDIR/NAME.torch.pb    PyTorch's output for it, the reference for
                            correctness tests
Each file is written to a temporary name and renamed, so an interrupted export
never leaves a file that looks complete. Runs with Debian's python3-torch,
python3-torchvision and python3-onnx (`/usr/bin/python3`).
"""
import os
import sys

import torch
import torchvision
from onnx import numpy_helper

NAMES = ["resnet18", "resnet50", "vgg16", "vgg19", "alexnet", "mobilenet_v2"]
MORE = ["regnet_y_400mf", "resnext50_32x4d", "mobilenet_v3_small", "efficientnet_b0",
        "shufflenet_v2_x1_0", "squeezenet1_0", "densenet121", "googlenet"]
OPSET = 13
INPUT_SHAPE = (1, 3, 224, 224)
INPUT_SEED = 1234


def build(name):
    torch.manual_seed(0)
    ctor = getattr(torchvision.models, name)
    try:
        net = ctor(weights=None)
    except TypeError:  # torchvision < 0.13
        net = ctor(pretrained=False)
    return net.eval()


def write_tensor(path, array, name):
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())
    os.replace(tmp, path)


def export(name, outdir):
    net = build(name)
    gen = torch.Generator().manual_seed(INPUT_SEED)
    x = torch.randn(INPUT_SHAPE, generator=gen, dtype=torch.float32)
    onnx_path = os.path.join(outdir, name + ".onnx")
    tmp = onnx_path + ".tmp.%d" % os.getpid()
    with torch.no_grad():
        torch.onnx.export(net, x, tmp, input_names=["input"], output_names=["output"],
                          opset_version=OPSET, do_constant_folding=True,
                          export_params=True)
        y = net(x)
    os.replace(tmp, onnx_path)
    write_tensor(os.path.join(outdir, name + ".input.pb"), x.numpy(), "input")
    write_tensor(os.path.join(outdir, name + ".torch.pb"), y.numpy(), "output")
    print("exported %s: %s (%.1f MB), output %s" %
          (name, onnx_path, os.path.getsize(onnx_path) / 1e6, list(y.shape)), flush=True)


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: export_torchvision.py OUTDIR [%s]..." % "|".join(NAMES))
    outdir = argv[1]
    names = argv[2:] or NAMES
    for n in names:
        if n not in NAMES + MORE:
            sys.exit("export_torchvision.py: unknown network %r (known: %s)" %
                     (n, " ".join(NAMES + MORE)))
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for n in names:
        export(n, outdir)


if __name__ == "__main__":
    main(sys.argv)
