#!/usr/bin/python3
"""layer_kinds.py - our int8 layers against ONNX Runtime's nodes, summed per
layer kind (issue 41): stem conv, depthwise, 1x1, 3x3, other convs, FC,
QADD, pools, Q/DQ and layout conversions.

    /usr/bin/python3 bench/int8/layer_kinds.py MODEL.q.onnx OURS.txt ORT.txt

OURS.txt: `NET.int8 --input X --threads 1 --repeat 30 --profile` output;
ORT.txt: `node bench/int8/ort_profile.js ORT_DIR MODEL.q.onnx X` output.
Both name a layer after its Conv/Gemm/Add node (ORT adds `_token_N`).
Prints one Markdown row: ours / ORT ms per kind, and the sums."""
import collections
import re
import sys

import onnx

KINDS = ['stem', 'dw', '1x1', '3x3', 'other', 'fc', 'qadd', 'pool', 'qdq']
ORT_OPS = {'QLinearConv': 'QCONV', 'QGemm': 'QGEMM', 'QLinearAdd': 'QADD',
           'NhwcMaxPool': 'POOL', 'MaxPool': 'POOL', 'QLinearGlobalAveragePool': 'POOL',
           'QLinearAveragePool': 'POOL'}


def profile_layers(path):
    """(op, name, ms) of each row of the layer table of an `EXE --profile`
    output (bench/transformers/layer_kinds.py reads it the same way)."""
    row = re.compile(r'\s*\d+\s+(\S+)\s+(\S+)\s+\d+\s+\d+\s+([\d.]+)\s+[\d.]+\s+\S+\s*$')
    with open(path) as f:
        for line in f:
            if line.startswith('block'):
                break   # the block table follows the layer table
            mm = row.match(line)
            if mm:
                yield mm.group(1), mm.group(2), float(mm.group(3))


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: layer_kinds.py MODEL.q.onnx OURS.txt ORT.txt')
    model, ours_f, ort_f = sys.argv[1:]
    m = onnx.load(model, load_external_data=False)
    convs, first = {}, None
    for n in m.graph.node:
        if n.op_type != 'Conv':
            continue
        at = {a.name: a for a in n.attribute}
        k = tuple(at['kernel_shape'].ints) if 'kernel_shape' in at else None
        convs[n.name] = (k, at['group'].i if 'group' in at else 1)
        first = first or n.name

    def kind(name, op):
        if op == 'QCONV':
            k, g = convs.get(name, (None, 1))
            return ('stem' if name == first else 'dw' if g > 1 else '1x1' if k == (1, 1)
                    else '3x3' if k == (3, 3) else 'other')
        return {'QGEMM': 'fc', 'QADD': 'qadd', 'POOL': 'pool'}.get(op, 'qdq')

    ours, ort = collections.Counter(), collections.Counter()
    for op, name, ms in profile_layers(ours_f):
        ours[kind(name, op)] += ms
    with open(ort_f) as f:
        for line in f:
            if line.startswith('NODE '):
                _, name, op, ms = line.split()
                ort[kind(re.sub(r'_token_\d+$', '', name), ORT_OPS.get(op, 'X'))] += float(ms)
    if not ours or not ort:
        sys.exit('layer_kinds.py: no layers read (is OURS.txt --profile output, ORT.txt '
                 'ort_profile.js output?)')
    cells = ['-' if not ours[k] and not ort[k] else '%.2f / %.2f' % (ours[k], ort[k])
             for k in KINDS]
    cells.append('%.2f / %.2f' % (sum(ours.values()), sum(ort.values())))
    print('| %s | %s |' % (model.split('/')[-1].replace('.q.onnx', ''), ' | '.join(cells)))


if __name__ == '__main__':
    main()
