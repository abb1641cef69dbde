#!/usr/bin/python3
"""export_transformers.py OUTDIR NAME... - the transformers of issue 42 with
seeded random weights, exported from Debian's PyTorch (opset 14, in train
mode with every dropout at 0: PyTorch 1.13's eval-mode fused attention has
no ONNX export), with seeded inputs: OUTDIR/NAME.onnx and NAME.in_K.pb.

  vit_b_16      torchvision ViT-B/16, one 224x224 image
  bert_base_S   a BERT-base-class encoder (12 layers, hidden 768, 12 heads,
                FFN 3072, GELU) over token ids plus position embeddings, an
                int64 0/1 padding mask input, sequence S (e.g. 128, 384)"""
import os
import sys
import warnings

import numpy as np
import torch
from onnx import numpy_helper

warnings.filterwarnings("ignore")


class Bert(torch.nn.Module):
    def __init__(self, layers=12, d=768, heads=12, ff=3072, vocab=30522, seq=512):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Parameter(torch.randn(1, seq, d) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu",
                                                 batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers)

    def forward(self, ids, mask):
        x = self.tok(ids) + self.pos[:, :ids.shape[1]]
        return self.enc(x, src_key_padding_mask=mask == 0)


def save(path, a, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(a), name).SerializeToString())


def export(outdir, name):
    torch.manual_seed(0)
    if name == "vit_b_16":
        import torchvision
        net = torchvision.models.vit_b_16()
        # torchvision starts the head at zero (every output would be the bias)
        torch.nn.init.normal_(net.heads.head.weight, std=0.02)
        ins, names = (torch.randn(1, 3, 224, 224),), ["input"]
    elif name.startswith("bert_base_"):
        seq = int(name[len("bert_base_"):])
        net = Bert()
        ids = torch.randint(0, 30522, (1, seq))
        mask = torch.ones(1, seq, dtype=torch.int64)
        mask[0, seq - seq // 8:] = 0   # the last eighth is padding
        ins, names = (ids, mask), ["ids", "mask"]
    else:
        raise SystemExit("export_transformers.py: unknown network %s" % name)
    net.train()
    for m in net.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    tmp = os.path.join(outdir, name + ".onnx.tmp")
    torch.onnx.export(net, ins, tmp, input_names=names, output_names=["y"], opset_version=14,
                      training=torch.onnx.TrainingMode.PRESERVE)
    for k, (t, n) in enumerate(zip(ins, names)):
        save(os.path.join(outdir, "%s.in_%d.pb" % (name, k)), t.numpy(), n)
    os.replace(tmp, os.path.join(outdir, name + ".onnx"))


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: export_transformers.py OUTDIR NAME...")
    os.makedirs(sys.argv[1], exist_ok=True)
    for name in sys.argv[2:]:
        export(sys.argv[1], name)


if __name__ == "__main__":
    main()
