"""tree_models.py DIR: TreeEnsembleRegressor models (ai.onnx.ml opset 1) of
seeded random forests: every branch mode, NaN inputs with and without
missing_value_tracks_true, leaves with several targets, base values, each
aggregate and post transform (PROBIT aside), a tree that is one leaf, nodes
listed out of order. Writes DIR/NAME.onnx and DIR/NAME.in_0.pb and prints
the names; bad forests go to DIR/bad_NAME.onnx with `bad NAME TEXT`."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = sys.argv[1]
rng = np.random.default_rng(40)
MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def forest(n_trees, n_targets, F, depth, values):
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                         "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
                         "nodes_missing_value_tracks_true", "target_treeids", "target_nodeids",
                         "target_ids", "target_weights"]}
    for t in range(n_trees):
        nodes = []   # (id, mode, feature, value, true, false, miss)

        def grow(d):
            nid = len(nodes)
            nodes.append(None)
            if d == 0 or rng.random() < 0.2:
                nodes[nid] = (nid, "LEAF", 0, 0.0, 0, 0, 0)
                for tg in rng.choice(n_targets, int(rng.integers(1, n_targets + 1)), replace=False):
                    a["target_treeids"].append(t)
                    a["target_nodeids"].append(nid)
                    a["target_ids"].append(int(tg))
                    a["target_weights"].append(float(np.float32(rng.normal())))
                return nid
            mode = MODES[int(rng.integers(0, 6))]
            f = int(rng.integers(0, F))
            v = float(rng.choice(values))
            tr = grow(d - 1)
            fa = grow(d - 1)
            nodes[nid] = (nid, mode, f, v, tr, fa, int(rng.random() < 0.5))
            return nid

        grow(0 if t == 1 else depth)   # tree 1 is a single leaf
        order = [0] + list(rng.permutation(range(1, len(nodes))))   # root first, rest shuffled
        for k in order:
            nid, mode, f, v, tr, fa, miss = nodes[k]
            a["nodes_treeids"].append(t)
            a["nodes_nodeids"].append(nid)
            a["nodes_featureids"].append(f)
            a["nodes_modes"].append(mode)
            a["nodes_values"].append(v)
            a["nodes_truenodeids"].append(tr)
            a["nodes_falsenodeids"].append(fa)
            a["nodes_missing_value_tracks_true"].append(miss)
    return a


def save(name, attrs, x):
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], name="trees",
                            domain="ai.onnx.ml", **attrs)
    dt = TensorProto.FLOAT if x.dtype == np.float32 else TensorProto.DOUBLE
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", dt, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid("ai.onnx.ml", 1)])
    m.ir_version = 7
    onnx.save(m, os.path.join(D, name + ".onnx"))
    with open(os.path.join(D, name + ".in_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())


F = 5
values = np.float32([-1.0, -0.5, 0.0, 0.5, 1.0])   # inputs take these, so EQ and NEQ matter
k = 0
for agg in ["SUM", "AVERAGE", "MIN", "MAX"]:
    for post in ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"]:
        for dt in [np.float32, np.float64]:
            if dt == np.float64 and post in ("SOFTMAX", "SOFTMAX_ZERO"):
                continue
            nt = int(rng.integers(1, 4))
            attrs = forest(int(rng.integers(2, 6)), nt, F, int(rng.integers(1, 5)), values)
            attrs.update(n_targets=nt, aggregate_function=agg, post_transform=post)
            if rng.random() < 0.6:
                attrs["base_values"] = [float(np.float32(v)) for v in rng.normal(size=nt)]
            x = rng.choice(values, size=(7, F)).astype(dt)
            x[rng.random((7, F)) < 0.15] = np.nan
            name = "trees_%s_%s_%s_%d" % (agg, post, np.dtype(dt).name, k)
            save(name, attrs, x)
            print(name)
            k += 1

good = forest(2, 1, F, 2, values)
while all(m == "LEAF" for m in good["nodes_modes"]):
    good = forest(2, 1, F, 2, values)
good.update(n_targets=1)
x = np.zeros((2, F), np.float32)
b = [i for i, m in enumerate(good["nodes_modes"]) if m != "LEAF"][0]   # a branch node


def at(key, v):
    """good's attribute key with entry b set to v"""
    return {key: good[key][:b] + [v] + good[key][b + 1:]}


bad = [
    ("mode", at("nodes_modes", "BRANCH_XX"), "nodes_modes"),
    ("child", at("nodes_truenodeids", 99), "not a node"),
    ("target", dict(target_ids=[5] + good["target_ids"][1:]), "n_targets"),
    ("cycle", at("nodes_truenodeids", good["nodes_nodeids"][b]), "cycle"),
    ("feature", at("nodes_featureids", F + 3), "feature"),
    ("probit", dict(post_transform="PROBIT"), "PROBIT"),
    ("lengths", dict(nodes_values=good["nodes_values"][1:]), "entries"),
]
for name, over, text in bad:
    a = dict(good)
    a.update(over)
    save("bad_" + name, a, x)
    print("bad", "bad_" + name, text)
