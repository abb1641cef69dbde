#!/usr/bin/python3
"""torch_models.py OUTDIR - small seeded transformers from Debian's PyTorch,
exported to ONNX (opset 14) in train mode with every dropout at 0 (PyTorch
1.13's eval-mode fast path has no ONNX export), with their inputs and
PyTorch's outputs: OUTDIR/NAME.onnx, NAME.in_K.pb, NAME.torch_K.pb. Prints
one line per model: NAME, the number of inputs and of outputs, and the
number of attention layers the attention pass must make of it.

  enc_mask   nn.TransformerEncoder (2 layers, GELU, batch_first) over token
             and position embeddings, int64 ids and a 0/1 padding mask
  enc_pre    pre-norm layers, ReLU, float input, no mask, 2 heads of 16
  vit        torchvision VisionTransformer (32x32 image, 8x8 patches)
  cross      nn.MultiheadAttention with 7 queries against 11 keys (kdim and
             vdim of their own) and a float attention mask"""
import os
import sys
import warnings

import numpy as np
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from export_transformers import Bert  # noqa: E402  (the benchmark's encoder, smaller here)

warnings.filterwarnings("ignore")
torch.manual_seed(11)


class EncPre(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True,
                                                 norm_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 2)

    def forward(self, x):
        return self.enc(x)


class Cross(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(24, 3, dropout=0.0, kdim=10, vdim=14,
                                               batch_first=True)

    def forward(self, q, kv_k, kv_v, m):
        return self.mha(q, kv_k, kv_v, attn_mask=m, need_weights=False)[0]


def save(path, a, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(a), name).SerializeToString())


def models():
    ids = torch.randint(0, 100, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 11:] = 0
    yield "enc_mask", Bert(layers=2, d=64, heads=4, ff=128, vocab=100, seq=16), (ids, mask), \
        ["ids", "mask"], 2
    yield "enc_pre", EncPre(), (torch.randn(1, 10, 32),), ["x"], 2
    import torchvision
    vit = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                               num_heads=4, hidden_dim=64, mlp_dim=128,
                                               num_classes=10)
    torch.nn.init.normal_(vit.heads.head.weight, std=0.2)   # torchvision's head starts at zero
    yield "vit", vit, (torch.randn(1, 3, 32, 32),), ["image"], 2
    m = torch.randn(7, 11)
    yield "cross", Cross(), (torch.randn(2, 7, 24), torch.randn(2, 11, 10), torch.randn(2, 11, 14),
                             m), ["q", "k", "v", "m"], 1


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, net, ins, names, n_attn in models():
        net.train()   # dropout 0 everywhere: train mode computes what eval does
        for mod in net.modules():
            if isinstance(mod, torch.nn.Dropout):
                mod.p = 0.0
        with torch.no_grad():
            y = net(*ins)
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(net, ins, path, input_names=names, output_names=["y"],
                          opset_version=14, training=torch.onnx.TrainingMode.PRESERVE)
        for k, (t, n) in enumerate(zip(ins, names)):
            save(os.path.join(out, "%s.in_%d.pb" % (name, k)), t.numpy(), n)
        save(os.path.join(out, "%s.torch_0.pb" % name), y.numpy(), "y")
        print(name, len(ins), 1, n_attn)


if __name__ == "__main__":
    main()
