#!/usr/bin/python3
"""make_corpus.py OUTDIR - writes the malformed-model corpus for run_errors.sh.

Every case is a file OUTDIR/NAME.onnx (or a missing one) that `paleozoic
inspect` must refuse cleanly: exit code 2, stderr starting with
"paleozoic: error: " and naming what is wrong. OUTDIR/manifest.tsv lists the
cases, one per line:

    NAME <TAB> EXPECT <TAB> SUBSTRING [<TAB> SUBSTRING ...]

EXPECT is "error" (exit 2, every SUBSTRING in stderr), "ok" (exit 0: a
control model, so that its broken variants test what they claim) or
"nocrash" (exit 0 or 2, either is acceptable; no crash, no sanitizer report).

Written with Debian's python3-onnx (onnx.helper, onnx.numpy_helper) only to
build the files; nothing here loads or checks a model. Deterministic: the same
bytes on every run.
"""
import os
import random
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
cases = []  # (name, expect, [substrings])


def vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, extra_opsets=(), name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(g, opset_imports=ops, producer_name="paleozoic-error-corpus")
    m.ir_version = 8
    return m


def weights(name, shape, seed=0):
    rng = np.random.RandomState(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def bare_tensor(name, dtype, dims, raw=None):
    """A TensorProto built field by field (onnx.helper refuses inconsistent ones)."""
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    if raw is not None:
        t.raw_data = raw
    return t


def save(outdir, name, m, expect, *subs):
    with open(os.path.join(outdir, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())
    cases.append((name, expect, list(subs)))


def save_bytes(outdir, name, data, expect, *subs):
    with open(os.path.join(outdir, name + ".onnx"), "wb") as f:
        f.write(data)
    cases.append((name, expect, list(subs)))


def conv_model(**attrs):
    """X[1,3,32,32] -> Conv(W[16,3,3,3]) "conv1" -> Y."""
    node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv1", **attrs)
    return model([node], [vi("X", [1, 3, 32, 32])], [vi("Y", None)], [weights("W", [16, 3, 3, 3])])


def main(outdir):
    os.makedirs(outdir, exist_ok=True)

    # --- controls: valid models the broken ones are derived from ----------------------
    ok = model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv1", pads=[3, 3, 3, 3]),
                helper.make_node("Relu", ["Y"], ["Z"], name="relu1")],
               [vi("X", [1, 3, 32, 32])], [vi("Z", [1, 64, 32, 32])],
               [weights("W", [64, 3, 7, 7])])
    save(outdir, "ok_conv_relu", ok, "ok")

    # --- unsupported ops and domains --------------------------------------------------
    save(outdir, "unsupported_op",
         model([helper.make_node("Det", ["X"], ["Y"], name="det_node")],
               [vi("X", [3, 3])], [vi("Y", [])]),
         "error", "Det", "det_node", "ai.onnx", "opset 13")
    save(outdir, "unknown_domain",
         model([helper.make_node("Frobnicate", ["X"], ["Y"], name="frob_node",
                                 domain="com.example.nowhere")],
               [vi("X", [2, 2])], [vi("Y", [2, 2])]),
         "error", "Frobnicate", "frob_node", "com.example.nowhere")
    save(outdir, "custom_domain_op",
         model([helper.make_node("Frobnicate", ["X"], ["Y"], name="frob_node",
                                 domain="com.example.custom")],
               [vi("X", [2, 2])], [vi("Y", [2, 2])],
               extra_opsets=[("com.example.custom", 1)]),
         "error", "Frobnicate", "frob_node", "com.example.custom")
    save(outdir, "opset_too_new",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [vi("X", [2, 2])], [vi("Y", [2, 2])], opset=99),
         "error", "opset 99")

    # --- graph structure --------------------------------------------------------------
    save(outdir, "missing_initializer",
         model([helper.make_node("Conv", ["X", "W_missing"], ["Y"], name="conv1")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)]),
         "error", "conv1", "W_missing")
    save(outdir, "cycle",
         model([helper.make_node("Add", ["X", "t2"], ["t1"], name="add_in_cycle"),
                helper.make_node("Relu", ["t1"], ["t2"], name="relu_in_cycle")],
               [vi("X", [2, 2])], [vi("t1", [2, 2])]),
         "error", "cycle", "_in_cycle")
    save(outdir, "self_loop",
         model([helper.make_node("Relu", ["t1"], ["t1"], name="relu_self")],
               [vi("X", [2, 2])], [vi("t1", [2, 2])]),
         "error", "relu_self")
    save(outdir, "duplicate_output",
         model([helper.make_node("Relu", ["X"], ["dup_out"], name="relu_a"),
                helper.make_node("Sigmoid", ["X"], ["dup_out"], name="sigmoid_b")],
               [vi("X", [2, 2])], [vi("dup_out", [2, 2])]),
         "error", "dup_out", "sigmoid_b")
    save(outdir, "output_overwrites_input",
         model([helper.make_node("Relu", ["X"], ["X"], name="relu_over")],
               [vi("X", [2, 2])], [vi("X", [2, 2])]),
         "error", "relu_over")
    save(outdir, "dangling_output",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [vi("X", [2, 2])], [vi("Y", [2, 2]), vi("nowhere_out", [2, 2])]),
         "error", "nowhere_out")
    save(outdir, "no_outputs",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")], [vi("X", [2, 2])], []),
         "error", "output")
    save(outdir, "too_few_inputs",
         model([helper.make_node("Conv", ["X"], ["Y"], name="conv_one_input")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)]),
         "error", "conv_one_input", "inputs")
    save(outdir, "initializer_twice",
         model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv1")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)],
               [weights("W", [4, 3, 3, 3]), weights("W", [4, 3, 3, 3])]),
         "error", "\"W\"", "twice")

    # --- shapes -----------------------------------------------------------------------
    save(outdir, "declared_shape_mismatch",
         model([helper.make_node("Relu", ["X"], ["relu_out"], name="relu1")],
               [vi("X", [1, 3, 4, 4])], [vi("relu_out", [1, 3, 5, 5])]),
         "error", "relu_out", "1x3x5x5", "1x3x4x4")
    save(outdir, "declared_dtype_mismatch",
         model([helper.make_node("Relu", ["X"], ["relu_out"], name="relu1")],
               [vi("X", [1, 3, 4, 4])], [vi("relu_out", [1, 3, 4, 4], TensorProto.INT64)]),
         "error", "relu_out", "int64")
    save(outdir, "add_not_broadcastable",
         model([helper.make_node("Add", ["A", "B"], ["C"], name="add_bad")],
               [vi("A", [2, 3]), vi("B", [4, 5])], [vi("C", None)]),
         "error", "add_bad", "broadcast")
    save(outdir, "conv_channel_mismatch",
         model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv_ch")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)], [weights("W", [8, 4, 3, 3])]),
         "error", "conv_ch", "channels")
    save(outdir, "conv_kernel_larger_than_input",
         model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv_big_k")],
               [vi("X", [1, 3, 2, 2])], [vi("Y", None)], [weights("W", [8, 3, 5, 5])]),
         "error", "conv_big_k", "kernel")
    save(outdir, "gemm_inner_mismatch",
         model([helper.make_node("Gemm", ["A", "B"], ["C"], name="gemm_bad")],
               [vi("A", [2, 3])], [vi("C", None)], [weights("B", [4, 5])]),
         "error", "gemm_bad")
    save(outdir, "matmul_inner_mismatch",
         model([helper.make_node("MatMul", ["A", "B"], ["C"], name="matmul_bad")],
               [vi("A", [2, 3]), vi("B", [4, 5])], [vi("C", None)]),
         "error", "matmul_bad")
    save(outdir, "reshape_wrong_count",
         model([helper.make_node("Reshape", ["X", "shape"], ["Y"], name="reshape_bad")],
               [vi("X", [2, 3, 4])], [vi("Y", None)],
               [numpy_helper.from_array(np.array([5, 5], dtype=np.int64), "shape")]),
         "error", "reshape_bad")
    save(outdir, "dims_overflow",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [vi("X", [2**40, 2**40, 2**40])], [vi("Y", None)]),
         "error", "\"X\"", "overflow")
    save(outdir, "initializer_dims_overflow",
         model([helper.make_node("Add", ["X", "Wbig"], ["Y"], name="add1")],
               [vi("X", [2, 2])], [vi("Y", None)],
               [bare_tensor("Wbig", F, [2**31, 2**31, 2**31], b"\0" * 16)]),
         "error", "Wbig", "overflow")
    save(outdir, "negative_input_dim",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [vi("X", [2, -3])], [vi("Y", None)]),
         "error", "\"X\"", "negative")
    save(outdir, "symbolic_dim_unbound",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [vi("X", ["batch_size", 3, 8, 8])], [vi("Y", None)]),
         "error", "\"X\"", "batch_size", "--input-shape")
    save(outdir, "input_rank_too_high",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [vi("X", [1] * 12)], [vi("Y", None)]),
         "error", "\"X\"", "rank")
    save(outdir, "input_without_shape",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1")],
               [helper.make_tensor_value_info("X", F, None)], [vi("Y", None)]),
         "error", "\"X\"", "shape")
    save(outdir, "string_input",
         model([helper.make_node("Identity", ["X"], ["Y"], name="id1")],
               [vi("X", [2], TensorProto.STRING)], [vi("Y", None)]),
         "error", "\"X\"", "string")

    # --- attributes -------------------------------------------------------------------
    save(outdir, "attr_wrong_type", conv_model(strides=[2.0, 2.0]),
         "error", "conv1", "strides")
    save(outdir, "attr_wrong_type_scalar", conv_model(group=1.5),
         "error", "conv1", "group")
    save(outdir, "negative_kernel",
         model([helper.make_node("MaxPool", ["X"], ["Y"], name="pool_neg", kernel_shape=[-2, -2])],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)]),
         "error", "pool_neg", "kernel_shape")
    save(outdir, "conv_negative_kernel_attr", conv_model(kernel_shape=[-3, -3]),
         "error", "conv1", "kernel_shape")
    save(outdir, "pads_wrong_length", conv_model(pads=[1, 1, 1]),
         "error", "conv1", "pads")
    save(outdir, "negative_pads", conv_model(pads=[-1, 0, 0, 0]),
         "error", "conv1", "pads")
    save(outdir, "zero_stride", conv_model(strides=[0, 1]),
         "error", "conv1", "strides")
    save(outdir, "bad_auto_pad", conv_model(auto_pad="SIDEWAYS"),
         "error", "conv1", "auto_pad")
    save(outdir, "axis_out_of_range",
         model([helper.make_node("Concat", ["A", "B"], ["C"], name="concat_axis", axis=3)],
               [vi("A", [2, 3]), vi("B", [2, 3])], [vi("C", None)]),
         "error", "concat_axis", "axis")
    save(outdir, "softmax_axis_out_of_range",
         model([helper.make_node("Softmax", ["X"], ["Y"], name="softmax_axis", axis=-5)],
               [vi("X", [2, 3])], [vi("Y", None)]),
         "error", "softmax_axis", "axis")
    save(outdir, "flatten_axis_out_of_range",
         model([helper.make_node("Flatten", ["X"], ["Y"], name="flatten_axis", axis=7)],
               [vi("X", [2, 3, 4])], [vi("Y", None)]),
         "error", "flatten_axis", "axis")

    # --- tensors ----------------------------------------------------------------------
    short = bare_tensor("W_short", F, [16, 3, 3, 3], b"\0" * 100)
    save(outdir, "initializer_short_raw",
         model([helper.make_node("Conv", ["X", "W_short"], ["Y"], name="conv1")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)], [short]),
         "error", "W_short", "100")
    few = bare_tensor("W_few", F, [4, 4])
    few.float_data.extend([1.0, 2.0, 3.0])
    save(outdir, "initializer_few_values",
         model([helper.make_node("Add", ["X", "W_few"], ["Y"], name="add1")],
               [vi("X", [4, 4])], [vi("Y", None)], [few]),
         "error", "W_few", "3")
    ext = bare_tensor("W_ext", F, [4])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../../../../etc/passwd"), ("offset", "0"), ("length", "16")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    save(outdir, "external_data_escape",
         model([helper.make_node("Add", ["X", "W_ext"], ["Y"], name="add1")],
               [vi("X", [4])], [vi("Y", None)], [ext]),
         "error", "W_ext", "refused")
    ext2 = bare_tensor("W_ext2", F, [4])
    ext2.data_location = TensorProto.EXTERNAL
    e = ext2.external_data.add()
    e.key, e.value = "location", "no_such_weights.bin"
    save(outdir, "external_data_missing",
         model([helper.make_node("Add", ["X", "W_ext2"], ["Y"], name="add1")],
               [vi("X", [4])], [vi("Y", None)], [ext2]),
         "error", "W_ext2", "no_such_weights.bin")
    # a link inside the model's folder that leads out of it
    link = os.path.join(outdir, "escape_link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("/etc/passwd", link)
    ext3 = bare_tensor("W_link", F, [4])
    ext3.data_location = TensorProto.EXTERNAL
    e = ext3.external_data.add()
    e.key, e.value = "location", "escape_link.bin"
    save(outdir, "external_data_symlink_escape",
         model([helper.make_node("Add", ["X", "W_link"], ["Y"], name="add1")],
               [vi("X", [4])], [vi("Y", None)], [ext3]),
         "error", "W_link", "outside")
    with open(os.path.join(outdir, "short_weights.bin"), "wb") as f:
        f.write(b"\0" * 8)
    ext4 = bare_tensor("W_past_end", F, [4])
    ext4.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "short_weights.bin"), ("offset", "4")):
        e = ext4.external_data.add()
        e.key, e.value = k, v
    save(outdir, "external_data_past_end",
         model([helper.make_node("Add", ["X", "W_past_end"], ["Y"], name="add1")],
               [vi("X", [4])], [vi("Y", None)], [ext4]),
         "error", "W_past_end", "past the end")
    save(outdir, "string_initializer",
         model([helper.make_node("Identity", ["S"], ["Y"], name="id1")],
               [], [vi("Y", None)],
               [helper.make_tensor("S", TensorProto.STRING, [1], [b"hello"])]),
         "error", "\"S\"", "string")

    # --- not ONNX at all --------------------------------------------------------------
    data = ok.SerializeToString()
    save_bytes(outdir, "truncated", data[: len(data) // 2], "error", "truncated")
    save_bytes(outdir, "truncated_tail", data[:-3], "error", "truncated")
    save_bytes(outdir, "text_file",
               b"This is not an ONNX model.\nIt is a text file with a few lines.\n",
               "error", "ONNX")
    save_bytes(outdir, "random_bytes", random.Random(1234).randbytes(4096), "error", "ONNX")
    save_bytes(outdir, "empty_file", b"", "error", "empty")
    # a ModelProto holding only ir_version = 8: valid protobuf, no graph
    save_bytes(outdir, "no_graph", b"\x08\x08", "error", "graph")
    cases.append(("does_not_exist", "error", ["does_not_exist.onnx"]))

    # --- robustness: a small valid model with bytes changed or cut short; a clean
    # --- error or a clean load are both fine, a crash is not -------------------------
    base = model([helper.make_node("Conv", ["X", "W", "B"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", ["c"], ["r"], name="relu1"),
                  helper.make_node("MaxPool", ["r"], ["p"], name="pool1", kernel_shape=[2, 2],
                                   strides=[2, 2]),
                  helper.make_node("Flatten", ["p"], ["f"], name="flat1", axis=1),
                  helper.make_node("Gemm", ["f", "Wfc", "Bfc"], ["g"], name="fc1", transB=1),
                  helper.make_node("Softmax", ["g"], ["Y"], name="softmax1", axis=1)],
                 [vi("X", [1, 3, 8, 8])], [vi("Y", [1, 10])],
                 [weights("W", [4, 3, 3, 3], 1), weights("B", [4], 2),
                  weights("Wfc", [10, 64], 3), weights("Bfc", [10], 4)])
    save(outdir, "ok_fuzz_base", base, "ok")
    data2 = base.SerializeToString()
    rng = random.Random(42)
    for i in range(150):
        b = bytearray(data2)
        for _ in range(1 + i % 4):
            # odd cases: anywhere; even ones: in the nodes (at the start) or the
            # graph's inputs, outputs and opsets (at the end), not in the weights
            pos = rng.randrange(len(b)) if i % 2 else rng.choice(
                [rng.randrange(350), len(b) - 1 - rng.randrange(150)])
            b[pos] = rng.randrange(256)
        save_bytes(outdir, "fuzz_%03d" % i, bytes(b), "nocrash")
    for i in range(20):
        save_bytes(outdir, "fuzz_cut_%02d" % i, data2[: rng.randrange(len(data2))], "nocrash")
    # zero-sized tensors are legal ONNX: load them or refuse them, but do not crash
    save(outdir, "conv_zero_out_channels",
         model([helper.make_node("Conv", ["X", "W0"], ["Y"], name="conv_zero")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)],
               [numpy_helper.from_array(np.zeros((0, 3, 3, 3), np.float32), "W0")]),
         "nocrash")
    # an empty initializer with neither raw_data nor typed data: legal ONNX
    save(outdir, "empty_initializer_no_data",
         model([helper.make_node("Concat", ["X", "E"], ["Y"], name="concat_empty", axis=0)],
               [vi("X", [2])], [vi("Y", None)], [bare_tensor("E", F, [0])]),
         "nocrash")
    save(outdir, "zero_batch",
         model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv1")],
               [vi("X", [0, 3, 8, 8])], [vi("Y", None)], [weights("W", [4, 3, 3, 3])]),
         "nocrash")

    with open(os.path.join(outdir, "manifest.tsv"), "w") as f:
        for name, expect, subs in cases:
            f.write("\t".join([name, expect] + subs) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_corpus.py OUTDIR")
    main(sys.argv[1])
