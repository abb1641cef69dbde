#!/usr/bin/python3
"""layer_kinds.py - our transformer layers against ONNX Runtime's nodes,
summed per layer kind (issue 42): the four GEMMs of an encoder block (Q/K/V,
attention out, FFN1, FFN2), attention (ours: one layer; ORT: the score and
P V MatMuls, Softmax, the head Transposes, the Q/K/V Split, the mask's
Where), LayerNorm (ORT's carries the residual Add, ours is in the GEMM
epilogue), GELU (ours in FFN1's epilogue) and the rest.

    /usr/bin/python3 bench/transformers/layer_kinds.py OURS.txt ORT.txt [LABEL]

OURS.txt: `EXE --input .. --threads N --repeat K --profile` output; ORT.txt:
`node bench/int8/ort_profile.js ORT_DIR MODEL.onnx IN.pb.. --threads N`
output. Both name the GEMMs after the nodes of tools/export_transformers.py
(BERT: self_attn/MatMul, self_attn/Gemm, linear1, linear2; torchvision ViT:
self_attention/MatMul, out_proj, mlp/mlp.0, mlp/mlp.3). Prints one Markdown
row: ours / ORT ms per kind, the sums and the non-GEMM share of each."""
import collections
import importlib.util
import os
import re
import sys

# the --profile table reader of bench/int8/layer_kinds.py (same file name: loaded by path)
_spec = importlib.util.spec_from_file_location(
    'int8_layer_kinds', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'int8',
                                     'layer_kinds.py'))
_int8 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_int8)

KINDS = ['qkv', 'out', 'ffn1', 'ffn2', 'attention', 'layernorm', 'gelu', 'other']


def gemm_kind(name):
    """The GEMM of an encoder block a node name belongs to, or None."""
    if re.search(r'linear1|mlp/mlp\.0|mlp\.0/', name):
        return 'ffn1'
    if re.search(r'linear2|mlp/mlp\.3|mlp\.3/', name):
        return 'ffn2'
    if re.search(r'self_att[a-z]*/Gemm|out_proj', name):
        return 'out'
    if re.search(r'self_att[a-z]*/MatMul(/|$)|in_proj', name):
        return 'qkv'
    return None


def ours_kind(name, op):
    if op in ('MATMUL', 'GEMM'):
        return gemm_kind(name) or 'other'
    return {'ATTENTION': 'attention', 'LAYERNORM': 'layernorm'}.get(op, 'other')


def ort_kind(name, op):
    if op in ('Gemm', 'MatMul') and gemm_kind(name):
        return gemm_kind(name)
    if op in ('FusedMatMul', 'MatMul', 'Softmax', 'Transpose', 'Split', 'Where', 'Attention',
              'MultiHeadAttention'):
        return 'attention'
    if 'LayerNormalization' in op:
        return 'layernorm'
    return 'gelu' if op in ('Gelu', 'BiasGelu', 'FastGelu') else 'other'


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: layer_kinds.py OURS.txt ORT.txt [LABEL]')
    ours, ort = collections.Counter(), collections.Counter()
    for op, name, ms in _int8.profile_layers(sys.argv[1]):
        ours[ours_kind(name, op)] += ms
    with open(sys.argv[2]) as f:
        for line in f:
            if line.startswith('NODE '):
                _, name, op, ms = line.split()
                ort[ort_kind(name, op)] += float(ms)
    if not ours or not ort:
        sys.exit('layer_kinds.py: no layers read (is OURS.txt --profile output, ORT.txt '
                 'ort_profile.js output?)')
    cells = ['-' if not ours[k] and not ort[k] else '%.2f / %.2f' % (ours[k], ort[k])
             for k in KINDS]
    so, sr = sum(ours.values()), sum(ort.values())
    go = sum(ours[k] for k in KINDS[:4])
    gr = sum(ort[k] for k in KINDS[:4])
    cells.append('%.2f / %.2f' % (so, sr))
    cells.append('%.1f%% / %.1f%%' % (100 * (so - go) / so, 100 * (sr - gr) / sr))
    label = sys.argv[3] if len(sys.argv) == 4 else sys.argv[1].split('/')[-1]
    print('| %s | %s |' % (label, ' | '.join(cells)))


if __name__ == '__main__':
    main()
