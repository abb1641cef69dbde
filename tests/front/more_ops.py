"""more_ops.py - TopK, Einsum, LpPool, OneHot, ReverseSequence,
TensorScatter, Det and MeanVarianceNormalization end to end through
`paleozoic run`, on cases larger and odder than the node suite's, against
numpy (stable argsort, np.einsum, windows summed here, np.linalg.det):

  - TopK: rows of 1 to 300 with many ties, largest and smallest, k 0 to n,
    an inner axis; int64 beyond 2^53 and uint64 beyond 2^63 (exact order);
  - Einsum: diagonal, ellipsis on both sides, three inputs, the implicit
    output, int64; float32 matrix products (the MATMUL path);
  - LpPool: p 1, 2, 3 with ceil_mode, pads, strides and dilations;
  - OneHot: out-of-range and negative indices, axis 0, int values;
  - ReverseSequence with lengths 0, 1 and full; TensorScatter circular with
    a wrap; Det of singular and 4x4 matrices; MVN over axes [1].

Called by front_cases.py: cases(ctx) with its helpers.
"""
import numpy as np
from onnx import TensorProto, helper

T = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
     np.dtype(np.int64): TensorProto.INT64, np.dtype(np.uint64): TensorProto.UINT64,
     np.dtype(np.int32): TensorProto.INT32}


def vi(name, a):
    return helper.make_tensor_value_info(name, T[a.dtype], list(a.shape))


def one(ctx, name, node, feeds, names, outs, opset, want, exact=False, tol=1e-5):
    """A model of one node over inputs `names` (arrays feeds) with outputs
    `outs` (arrays of the expected type and shape), checked against want."""
    m = ctx["model_of"]([node], [vi(n, a) for n, a in zip(names, feeds)],
                        [vi(n, a) for n, a in zip(outs, want)], opset=opset)
    got, err = ctx["run"](ctx["save"](m, name), feeds)
    ok = got is not None and len(got) == len(want)
    for g, w in zip(got or [], want):
        ok = ok and g.shape == w.shape and g.dtype == w.dtype and (
            np.array_equal(g, w) if exact else np.allclose(g, w, rtol=tol, atol=tol))
    ctx["check"](ok, name, err or "values differ")


def topk_ref(x, k, axis, largest):
    # ties: the lower index first (a stable sort; integers descending in
    # Python's exact arithmetic, as -x would wrap)
    if not largest:
        idx = np.argsort(x, axis=axis, kind="stable")
    elif x.dtype.kind == "f":
        idx = np.argsort(-x, axis=axis, kind="stable")
    else:
        idx = sorted_desc(x, axis)
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


def sorted_desc(x, axis):
    xm = np.moveaxis(x, axis, -1)
    out = np.empty(xm.shape, dtype=np.int64)
    for pos in np.ndindex(xm.shape[:-1]):
        row = [int(v) for v in xm[pos]]
        out[pos] = sorted(range(len(row)), key=lambda i: (-row[i], i))
    return np.moveaxis(out, -1, axis)


def lp_pool_ref(x, k, s, pads, d, p, ceil):
    n, c, h, w = x.shape
    outs = []
    for a, (size, kk, ss, dd, pb, pe) in enumerate(zip((h, w), k, s, d, pads[:2], pads[2:])):
        span = (size + pb + pe - ((kk - 1) * dd + 1))
        o = (-(-span // ss) if ceil else span // ss) + 1
        if ceil and (o - 1) * ss >= size + pb:
            o -= 1   # a last window starting in the end padding is dropped
        outs.append(o)
    y = np.zeros((n, c, outs[0], outs[1]))
    for i in range(outs[0]):
        for j in range(outs[1]):
            acc = np.zeros((n, c))
            for a in range(k[0]):
                for b in range(k[1]):
                    r, q = i * s[0] - pads[0] + a * d[0], j * s[1] - pads[1] + b * d[1]
                    if 0 <= r < h and 0 <= q < w:
                        acc += np.abs(x[:, :, r, q].astype(np.float64)) ** p
            y[:, :, i, j] = acc ** (1.0 / p)
    return y.astype(x.dtype)


def cases(ctx):
    rng = np.random.default_rng(39)

    # TopK
    for n in (1, 2, 7, 64, 300):
        x = rng.integers(-3, 4, (3, n)).astype(np.float32)
        for largest in (1, 0):
            for k in sorted({0, 1, n // 2, n}):
                v, i = topk_ref(x, k, 1, largest)
                node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1, largest=largest)
                one(ctx, "topk_n%d_k%d_l%d" % (n, k, largest), node,
                    [x, np.array([k], np.int64)], ["x", "k"], ["v", "i"], 11, [v, i], exact=True)
    x = rng.integers(0, 3, (2, 9, 4)).astype(np.float64)
    v, i = topk_ref(x, 5, 1, 1)
    one(ctx, "topk_inner_axis", helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1),
        [x, np.array([5], np.int64)], ["x", "k"], ["v", "i"], 11, [v, i], exact=True)
    big = np.array([[2**62 + 1, 2**62, 2**62 + 1, -2**62, 2**53 + 1, 2**53]], np.int64)
    v, i = topk_ref(big, 4, 1, 1)
    one(ctx, "topk_int64_exact", helper.make_node("TopK", ["x", "k"], ["v", "i"]),
        [big, np.array([4], np.int64)], ["x", "k"], ["v", "i"], 11, [v, i], exact=True)
    ub = np.array([[2**63 + 5, 3, 2**63, 2**64 - 1, 2**63 + 5]], np.uint64)
    v, i = topk_ref(ub, 3, 1, 0)
    one(ctx, "topk_uint64_smallest", helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=0),
        [ub, np.array([3], np.int64)], ["x", "k"], ["v", "i"], 11, [v, i], exact=True)

    # Einsum
    for eq, shapes in (("ii->i", [(4, 4)]), ("ii", [(5, 5)]), ("...ij,...jk->...ik", [(2, 3, 4, 5), (2, 3, 5, 6)]),
                       ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("bij,bkj", [(2, 3, 4), (2, 5, 4)]),
                       ("i,j->ij", [(3,), (4,)]), ("...i->i...", [(2, 3, 4)]), ("iji->j", [(3, 2, 3)])):
        xs = [rng.standard_normal(s) for s in shapes]
        want = np.asarray(np.einsum(eq, *xs))
        names = ["x%d" % k for k in range(len(xs))]
        one(ctx, "einsum_" + eq.replace(",", "_").replace("->", "_to_").replace("...", "E"),
            helper.make_node("Einsum", names, ["y"], equation=eq), xs, names, ["y"], 12, [want],
            tol=1e-9)
    # matrix products in MatMul's layout (they run as MATMUL): float32, B 2-D or batched
    for eq, shapes in (("bij,bjk->bik", [(3, 33, 17), (3, 17, 40)]), ("ij,jk", [(65, 31), (31, 18)]),
                       ("abij,jk->abik", [(2, 3, 9, 20), (20, 7)])):
        xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        want = np.einsum(eq, *[x.astype(np.float64) for x in xs]).astype(np.float32)
        one(ctx, "einsum_matmul_" + eq.split("-")[0].replace(",", "_"),
            helper.make_node("Einsum", ["a", "b"], ["y"], equation=eq), xs, ["a", "b"], ["y"], 12,
            [want], tol=1e-4)
    xi = [rng.integers(-50, 50, (3, 4)).astype(np.int64), rng.integers(-50, 50, (4, 2)).astype(np.int64)]
    one(ctx, "einsum_int64", helper.make_node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik"),
        xi, ["a", "b"], ["y"], 12, [xi[0] @ xi[1]], exact=True)

    # LpPool
    x = rng.standard_normal((1, 2, 7, 8)).astype(np.float32)
    for p, k, s, pads, d, ceil in ((1, (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), 1),
                                   (3, (2, 3), (2, 3), (1, 0, 1, 2), (1, 1), 1),
                                   (2, (2, 2), (1, 2), (1, 1, 1, 1), (2, 2), 0)):
        want = lp_pool_ref(x, k, s, pads, d, p, ceil)
        node = helper.make_node("LpPool", ["x"], ["y"], p=p, kernel_shape=list(k), strides=list(s),
                                pads=list(pads), dilations=list(d), ceil_mode=ceil)
        one(ctx, "lppool_p%d_ceil%d" % (p, ceil), node, [x], ["x"], ["y"], 18, [want], tol=1e-4)

    # OneHot
    ind = np.array([[0, 3, -1], [-4, 4, 2]], np.int64)
    depth = 4
    vals = np.array([7, -9], np.int32)
    want = np.full((4, 2, 3), 7, np.int32)
    for (a, b), t in np.ndenumerate(ind):
        if -depth <= t < depth:
            want[t % depth, a, b] = -9
    one(ctx, "onehot_axis0_range", helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=0),
        [ind, np.array(depth, np.int64), vals], ["i", "d", "v"], ["y"], 11, [want], exact=True)

    # ReverseSequence (batch_axis 1, time_axis 0)
    x = rng.standard_normal((5, 4, 2)).astype(np.float32)
    lens = np.array([0, 1, 5, 3], np.int64)
    want = x.copy()
    for b, ln in enumerate(lens):
        want[:ln, b] = x[:ln, b][::-1]
    one(ctx, "reversesequence_lens", helper.make_node("ReverseSequence", ["x", "l"], ["y"],
                                                      batch_axis=1, time_axis=0),
        [x, lens], ["x", "l"], ["y"], 10, [want], exact=True)

    # TensorScatter circular, axis 1, writes that wrap
    past = rng.standard_normal((2, 5, 3)).astype(np.float32)
    upd = rng.standard_normal((2, 3, 3)).astype(np.float32)
    wi = np.array([4, 1], np.int64)
    want = past.copy()
    for b in range(2):
        for s in range(3):
            want[b, (wi[b] + s) % 5] = upd[b, s]
    one(ctx, "tensorscatter_wrap", helper.make_node("TensorScatter", ["p", "u", "w"], ["y"], axis=1,
                                                    mode="circular"),
        [past, upd, wi], ["p", "u", "w"], ["y"], 24, [want], exact=True)

    # Det
    x = rng.standard_normal((3, 4, 4))
    x[1, 2] = x[1, 0] * 2   # singular
    one(ctx, "det_4x4", helper.make_node("Det", ["x"], ["y"]), [x], ["x"], ["y"], 11,
        [np.linalg.det(x)], tol=1e-9)

    # MeanVarianceNormalization over axes [1]
    x = rng.standard_normal((2, 6, 3)).astype(np.float32)
    xd = x.astype(np.float64)
    m = xd.mean(axis=1, keepdims=True)
    want = ((xd - m) / (np.sqrt(((xd - m) ** 2).mean(axis=1, keepdims=True)) + 1e-9)).astype(np.float32)
    one(ctx, "mvn_axes1", helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=[1]),
        [x], ["x"], ["y"], 13, [want], tol=1e-5)
