"""tfidf_models.py DIR: TfIdfVectorizer models with seeded random pools and
inputs (each mode, int32 and int64, [C] and [N, C], skips, weights, sizes 1
to 4, an n-gram in the pool whose prefix is not), written as DIR/NAME.onnx
with DIR/NAME.in_0.pb; prints one name a line. Bad attribute sets go to
DIR/bad_NAME.onnx with the text the error must name, as `bad NAME TEXT`."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = sys.argv[1]
rng = np.random.default_rng(39)


def model(name, x, attrs, ttype=None):
    dt = TensorProto.INT32 if x.dtype == np.int32 else TensorProto.INT64
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", **attrs)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", dt, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)])
    m.ir_version = 7
    onnx.save(m, os.path.join(D, name + ".onnx"))
    with open(os.path.join(D, name + ".in_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())


def pool_of(sizes, vocab):
    """n-grams of each size (distinct), and ngram_counts."""
    pool, counts, grams = [], [], 0
    for s, k in enumerate(sizes):
        counts.append(len(pool))
        seen = set()
        while len(seen) < k:
            seen.add(tuple(int(t) for t in rng.integers(0, vocab, s + 1)))
        for g in sorted(seen, key=lambda _: rng.random()):
            pool.extend(g)
        grams += k
    return pool, counts, grams


cases = 0
for mode in ["TF", "IDF", "TFIDF"]:
    for dt in [np.int32, np.int64]:
        for rank in [1, 2]:
            for max_gram, skip in [(1, 0), (2, 0), (2, 3), (3, 2), (4, 1)]:
                vocab = 6
                sizes = [int(rng.integers(1, 5)) for _ in range(max_gram)]
                pool, counts, grams = pool_of(sizes, vocab)
                min_gram = int(rng.integers(1, max_gram + 1))
                idx = rng.permutation(grams + 3)[:grams]
                attrs = dict(mode=mode, min_gram_length=min_gram, max_gram_length=max_gram,
                             max_skip_count=skip, ngram_counts=counts,
                             ngram_indexes=[int(i) for i in idx], pool_int64s=pool)
                if mode != "TF" or rng.random() < 0.5:
                    # read per output column: the indexes then cover 0 .. grams - 1
                    attrs["ngram_indexes"] = [int(i) for i in rng.permutation(grams)]
                    attrs["weights"] = [float(w) for w in rng.uniform(0.1, 3.0, grams)]
                shape = [int(rng.integers(5, 14))] if rank == 1 else [3, int(rng.integers(5, 14))]
                x = rng.integers(0, vocab, shape).astype(dt)
                name = "tfidf_%s_%s_r%d_g%d_s%d" % (mode, np.dtype(dt).name, rank, max_gram, skip)
                model(name, x, attrs)
                print(name)
                cases += 1

# a bigram whose first token is no unigram of the pool; an empty row
x = np.array([[1, 2, 1, 2, 3], [4, 4, 4, 4, 4]], dtype=np.int64)
model("tfidf_prefix", x, dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=1,
                              ngram_counts=[0, 1], ngram_indexes=[1, 0],
                              pool_int64s=[3, 1, 2]))
print("tfidf_prefix")

bad = [
    ("mode", dict(mode="BM25"), "'mode'"),
    ("counts", dict(ngram_counts=[0, 3]), "'ngram_counts'"),
    ("indexes", dict(ngram_indexes=[0, 0, 1]), "'ngram_indexes'"),
    ("weights", dict(weights=[1.0]), "'weights'"),
    ("grams", dict(min_gram_length=3, max_gram_length=2), "min_gram_length"),
    ("strings", dict(pool_int64s=None, pool_strings=["a", "b", "c", "d"]), "string"),
]
for name, over, text in bad:
    attrs = dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=0,
                 ngram_counts=[0, 2], ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 1, 2])
    attrs.update(over)
    attrs = {k: v for k, v in attrs.items() if v is not None}
    model("bad_" + name, np.array([1, 2, 3], dtype=np.int64), attrs)
    print("bad", "bad_" + name, text)
