#!/usr/bin/python3
"""random_models.py DIR - the random ops' models for tests/parts/39-random.sh.

Writes DIR/NAME.onnx (opset 17, which ONNX Runtime 1.17 runs) and, for the
models with an input, DIR/NAME.in_0.pb; prints one line per model:
NAME INPUTS (0 or 1). The models:
  uniform   RandomUniform [200000] low -2 high 3, seed 7
  normal    RandomNormal [200000] mean 1.5 scale 2, seed 7
  uniform_noseed  RandomUniform [1000], no seed
  normal_noseed   RandomNormal [1000], no seed
  ulike     RandomUniformLike(X float32 [30, 40]) dtype float64, seed 3
  nlike     RandomNormalLike(X float64 [30, 40]), seed 3
  multi     Multinomial(logits [3, 4]) sample_size 20000, int64, seed 5
  multi32   Multinomial(logits [3, 4]) sample_size 7 (dtype int32 default)
  bern      Bernoulli(P [100000]): P 0.3, and 0 and 1 at the ends, seed 9
  dropout   Dropout(X ones [100000], ratio 0.3, training_mode true), seed 4,
            output and mask
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

LOGITS = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1],
                          [0.25, 0.25, 0.25, 0.25]], np.float32))


def save(d, name, nodes, ins, outs, inits=(), feed=None):
    g = h.make_graph(nodes, name, ins, outs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid('', 17)])
    m.ir_version = 8
    onnx.save(m, f'{d}/{name}.onnx')
    if feed is not None:
        onnx.save_tensor(nh.from_array(feed, ins[0].name), f'{d}/{name}.in_0.pb')
    print(name, 0 if feed is None else 1)


def main(d):
    y = lambda dt, shape: h.make_tensor_value_info('Y', dt, shape)
    save(d, 'uniform', [h.make_node('RandomUniform', [], ['Y'], shape=[200000], low=-2.0,
                                    high=3.0, seed=7.0)], [], [y(TP.FLOAT, [200000])])
    save(d, 'normal', [h.make_node('RandomNormal', [], ['Y'], shape=[200000], mean=1.5,
                                   scale=2.0, seed=7.0)], [], [y(TP.FLOAT, [200000])])
    save(d, 'uniform_noseed', [h.make_node('RandomUniform', [], ['Y'], shape=[1000])], [],
         [y(TP.FLOAT, [1000])])
    save(d, 'normal_noseed', [h.make_node('RandomNormal', [], ['Y'], shape=[1000])], [],
         [y(TP.FLOAT, [1000])])
    x = h.make_tensor_value_info('X', TP.FLOAT, [30, 40])
    save(d, 'ulike', [h.make_node('RandomUniformLike', ['X'], ['Y'], dtype=TP.DOUBLE,
                                  seed=3.0)], [x], [y(TP.DOUBLE, [30, 40])],
         feed=np.zeros((30, 40), np.float32))
    xd = h.make_tensor_value_info('X', TP.DOUBLE, [30, 40])
    save(d, 'nlike', [h.make_node('RandomNormalLike', ['X'], ['Y'], seed=3.0)], [xd],
         [y(TP.DOUBLE, [30, 40])], feed=np.zeros((30, 40), np.float64))
    lg = h.make_tensor_value_info('X', TP.FLOAT, [3, 4])
    save(d, 'multi', [h.make_node('Multinomial', ['X'], ['Y'], sample_size=20000,
                                  dtype=TP.INT64, seed=5.0)], [lg], [y(TP.INT64, [3, 20000])],
         feed=LOGITS)
    save(d, 'multi32', [h.make_node('Multinomial', ['X'], ['Y'], sample_size=7)], [lg],
         [y(TP.INT32, [3, 7])], feed=LOGITS)
    p = np.full(100000, 0.3, np.float32)
    p[:100], p[-100:] = 0, 1
    pv = h.make_tensor_value_info('X', TP.FLOAT, [100000])
    save(d, 'bern', [h.make_node('Bernoulli', ['X'], ['Y'], seed=9.0)], [pv],
         [y(TP.FLOAT, [100000])], feed=p)
    inits = [nh.from_array(np.array(0.3, np.float32), 'r'),
             nh.from_array(np.array(True), 't')]
    save(d, 'dropout', [h.make_node('Dropout', ['X', 'r', 't'], ['Y', 'M'], seed=4)], [pv],
         [y(TP.FLOAT, [100000]), h.make_tensor_value_info('M', TP.BOOL, [100000])], inits,
         feed=np.ones(100000, np.float32))


if __name__ == '__main__':
    main(sys.argv[1])
