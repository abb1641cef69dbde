#!/usr/bin/env python3
"""zoo_torch_check.py - checks a `paleozoic zoo` model against torchvision.

Loads the ONNX file's initializers into torchvision.models.NAME() by name (the zoo
names its weights with torchvision's state_dict keys, so a strict load also checks
every layer's shape), runs the input saved by tools/ort_check.js and compares the
output with ORT's. With --stats, prints the mean square of every module's output.

  node tools/ort_check.js m.onnx --save-input m.in --save-output m.ort
  python3 tools/zoo_torch_check.py NAME m.onnx m.in m.ort [--stats]
"""
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) != 4:
        sys.exit(__doc__)
    name, path, in_path, out_path = args
    model = onnx.load(path)
    onnx.checker.check_model(model)
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in model.graph.initializer}
    net = getattr(torchvision.models, name)().eval()
    sd = net.state_dict()
    extra = sorted(set(weights) - set(sd) - {'relu6.min', 'relu6.max'})
    for k in sd:
        if k.endswith('num_batches_tracked'):
            weights[k] = sd[k]
    net.load_state_dict({k: v for k, v in weights.items() if k in sd}, strict=True)
    if extra:
        sys.exit(f'{name}: initializers that torchvision does not have: {extra[:5]}')
    x = torch.from_numpy(np.fromfile(in_path, dtype=np.float32).reshape(1, 3, 224, 224))
    if '--stats' in sys.argv:
        for mname, mod in net.named_modules():
            if not list(mod.children()) and not isinstance(mod, torch.nn.Dropout):
                mod.register_forward_hook(lambda m, i, o, n=mname: print(f'  {n:28s} {float((o * o).mean()):10.4f}'))
    with torch.no_grad():
        y = net(x).numpy().ravel()
    ort = np.fromfile(out_path, dtype=np.float32)
    err = np.abs(y - ort).max() / np.abs(y).max()
    rms = float(np.sqrt((y * y).mean()))
    print(f'{name}: {len(sd)} state_dict tensors matched, torch output rms {rms:.4g}, '
          f'max |torch - ort| / max |torch| = {err:.2e}')
    sys.exit(0 if err < 1e-4 else 1)


if __name__ == '__main__':
    main()
