#!/usr/bin/python3
"""flex_models.py DIR - FlexAttention models with graph attributes for
tests/parts/39-flex.sh, each with its inputs and numpy's reference.

Writes DIR/NAME.onnx, DIR/NAME.{Q,K,V}.pb and DIR/NAME.ref.pb, and prints
NAME per model; a model the compiler must refuse prints `bad NAME ATTR`.
  gqa_elem   4 query heads over 2 kv heads, scale 0.3; score_mod of 5
             inputs (score + 0.1 * (q_idx - kv_idx) * (h + 1)); mask_mod of 4
             inputs (kv_idx <= q_idx + 1); prob_mod of 5 inputs (prob * (b +
             1)); the order score_mod, mask, softmax, prob_mod
  gqa_tensor the same heads, default scale; score_mod and prob_mod of one
             input (the whole tensor: scores / 2, probs squared)
  bad_inputs score_mod of 2 inputs: refused naming score_mod
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

B, HQ, HKV, L, S, E, EV = 2, 4, 2, 3, 5, 8, 6
F, I = TP.FLOAT, TP.INT64


def vi(n, dt):
    return h.make_tensor_value_info(n, dt, None)


def const(name, v):
    return nh.from_array(np.array(v, np.float32 if isinstance(v, float) else np.int64), name)


def graph(name, nodes, ins, out_dt, inits=()):
    return h.make_graph(nodes, name, [vi(n, d) for n, d in ins], [vi('o', out_dt)],
                        initializer=list(inits))


def save(d, name, mods, scale, ref_fn):
    kw = dict(mods)
    if scale is not None:
        kw['scale'] = scale
    node = h.make_node('FlexAttention', ['Q', 'K', 'V'], ['Y'], domain='ai.onnx.preview', **kw)
    shape = {'Q': [B, HQ, L, E], 'K': [B, HKV, S, E], 'V': [B, HKV, S, EV]}
    g = h.make_graph([node], name, [h.make_tensor_value_info(k, F, v) for k, v in shape.items()],
                     [h.make_tensor_value_info('Y', F, [B, HQ, L, EV])])
    m = h.make_model(g, opset_imports=[h.make_opsetid('', 26), h.make_opsetid('ai.onnx.preview', 1)])
    m.ir_version = 11
    onnx.save(m, f'{d}/{name}.onnx')
    rng = np.random.default_rng(len(name))
    x = {k: rng.standard_normal(v).astype(np.float32) for k, v in shape.items()}
    for k, v in x.items():
        onnx.save_tensor(nh.from_array(v, k), f'{d}/{name}.{k}.pb')
    if ref_fn:
        kr = np.repeat(x['K'].astype(np.float64), HQ // HKV, axis=1)
        vr = np.repeat(x['V'].astype(np.float64), HQ // HKV, axis=1)
        sc = scale if scale is not None else 1 / np.sqrt(E)
        y = ref_fn(x['Q'].astype(np.float64) @ kr.transpose(0, 1, 3, 2) * sc) @ vr
        onnx.save_tensor(nh.from_array(y.astype(np.float32), 'Y'), f'{d}/{name}.ref.pb')
        print(name)


def softmax(s):
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


def main(d):
    b = np.arange(B)[:, None, None, None]
    hh = np.arange(HQ)[None, :, None, None]
    q = np.arange(L)[None, None, :, None]
    k = np.arange(S)[None, None, None, :]
    elem5 = [('s', F), ('b', I), ('h', I), ('q', I), ('k', I)]
    score = graph('score', [h.make_node('Sub', ['q', 'k'], ['d']),
                            h.make_node('Cast', ['d'], ['df'], to=F),
                            h.make_node('Add', ['h', 'one'], ['h1']),
                            h.make_node('Cast', ['h1'], ['hf'], to=F),
                            h.make_node('Mul', ['df', 'hf'], ['t']),
                            h.make_node('Mul', ['t', 'c'], ['t2']),
                            h.make_node('Add', ['s', 't2'], ['o'])],
                  elem5, F, [const('c', 0.1), const('one', 1)])
    mask = graph('mask', [h.make_node('Add', ['q', 'one'], ['q1']),
                          h.make_node('LessOrEqual', ['k', 'q1'], ['o'])],
                 elem5[1:], TP.BOOL, [const('one', 1)])
    prob = graph('prob', [h.make_node('Add', ['b', 'one'], ['b1']),
                          h.make_node('Cast', ['b1'], ['bf'], to=F),
                          h.make_node('Mul', ['s', 'bf'], ['o'])],
                 elem5, F, [const('one', 1)])
    save(d, 'gqa_elem', {'score_mod': score, 'mask_mod': mask, 'prob_mod': prob}, 0.3,
         lambda s: softmax(np.where(k <= q + 1, s + 0.1 * (q - k) * (hh + 1), -np.inf)) * (b + 1))
    half = graph('half', [h.make_node('Div', ['s', 'two'], ['o'])], [('s', F)], F,
                 [const('two', 2.0)])
    sq = graph('sq', [h.make_node('Mul', ['s', 's'], ['o'])], [('s', F)], F)
    save(d, 'gqa_tensor', {'score_mod': half, 'prob_mod': sq}, None,
         lambda s: softmax(s / 2) ** 2)
    two = graph('two', [h.make_node('Add', ['s', 'x'], ['o'])], [('s', F), ('x', F)], F)
    save(d, 'bad_inputs', {'score_mod': two}, None, None)
    print('bad bad_inputs score_mod')


if __name__ == '__main__':
    main(sys.argv[1])
