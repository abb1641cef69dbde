#!/usr/bin/python3
"""random_check.py CHECK FILE... - the statistics of tests/parts/39-random.sh
on outputs (TensorProto files); exits 1 with the figures when a bound fails.
  type A B          A and B have the same element type and shape (ours and
                    ONNX Runtime's)
  uniform Y LO HI   every value in [LO, HI); mean and variance of U(LO, HI)
                    within 5 standard errors
  normal Y MU SD    mean and variance within 5 standard errors, the share
                    within one SD of MU within 5 sigma of 0.6827
  multi Y LOGITS    per row, class counts against softmax(LOGITS) (given in
                    the model): chi-square below 35 (3 degrees of freedom: p
                    about 1e-7)
  bern Y P          values 0 or 1; 0 where P is 0, 1 where P is 1; the share
                    of ones where P is 0.3 within 5 sigma
  dropout Y M RATIO Y in {0, 1 / (1 - RATIO)} (X is ones), M true exactly
                    where Y is not 0, the dropped share within 5 sigma
  differ A B        A and B are not equal (fresh values)
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper as nh


def load(f):
    return nh.to_array(onnx.load_tensor(f))


def need(ok, what):
    if not ok:
        print('random_check:', what)
        sys.exit(1)


def within(got, want, se, what):
    need(abs(got - want) <= 5 * se, f'{what} {got:.6g}, expected {want:.6g} +- 5 * {se:.3g}')


def main(a):
    c = a[0]
    if c == 'type':
        x, y = load(a[1]), load(a[2])
        need(x.dtype == y.dtype and x.shape == y.shape,
             f'{x.dtype} {x.shape}, ONNX Runtime {y.dtype} {y.shape}')
    elif c == 'uniform':
        y, lo, hi = load(a[1]).astype(np.float64), float(a[2]), float(a[3])
        need(y.min() >= lo and y.max() < hi, f'values out of [{lo}, {hi}): {y.min()} {y.max()}')
        n, var = y.size, (hi - lo) ** 2 / 12
        within(y.mean(), (lo + hi) / 2, np.sqrt(var / n), 'mean')
        within(y.var(), var, np.sqrt((hi - lo) ** 4 / 180 / n), 'variance')
    elif c == 'normal':
        y, mu, sd = load(a[1]).astype(np.float64), float(a[2]), float(a[3])
        n = y.size
        within(y.mean(), mu, sd / np.sqrt(n), 'mean')
        within(y.var(), sd * sd, sd * sd * np.sqrt(2 / n), 'variance')
        p = 0.6826894921
        within(np.mean(np.abs(y - mu) < sd), p, np.sqrt(p * (1 - p) / n), 'share within 1 sd')
    elif c == 'multi':
        y, lg = load(a[1]), load(a[2]).astype(np.float64)
        prob = np.exp(lg) / np.exp(lg).sum(1, keepdims=True)
        for r in range(y.shape[0]):
            need(y[r].min() >= 0 and y[r].max() < prob.shape[1], f'row {r}: class out of range')
            cnt = np.bincount(y[r], minlength=prob.shape[1])
            exp = prob[r] * y.shape[1]
            chi = ((cnt - exp) ** 2 / exp).sum()
            need(chi < 35, f'row {r}: counts {cnt.tolist()}, expected {exp.tolist()}: '
                 f'chi-square {chi:.1f}')
    elif c == 'bern':
        y, p = load(a[1]), load(a[2])
        need(np.all((y == 0) | (y == 1)), 'a value neither 0 nor 1')
        need(np.all(y[p == 0] == 0) and np.all(y[p == 1] == 1), 'P 0 or 1 not honoured')
        mid = y[(p > 0) & (p < 1)]
        within(mid.mean(), 0.3, np.sqrt(0.21 / mid.size), 'share of ones')
    elif c == 'dropout':
        y, m, r = load(a[1]), load(a[2]), float(a[3])
        s = np.float32(1) / (np.float32(1) - np.float32(r))
        need(np.all((y == 0) | (np.abs(y - s) <= 1e-6 * s)), 'a value neither 0 nor 1/(1-r)')
        need(m.dtype == np.bool_ and np.array_equal(m, y != 0), 'mask not where kept')
        within(np.mean(y == 0), r, np.sqrt(r * (1 - r) / y.size), 'dropped share')
    elif c == 'differ':
        need(not np.array_equal(load(a[1]), load(a[2])), 'two runs gave the same values')
    else:
        need(False, f'unknown check {c}')


if __name__ == '__main__':
    main(sys.argv[1:])
