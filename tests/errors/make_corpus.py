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

import rt_index_cases

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


def save_command(outdir, name, args, expect, *subs):
    """A case that runs `paleozoic ARGS...` instead of `inspect NAME.onnx`.
    In args, @DIR@ is the corpus folder and @OUT@ a fresh empty folder that
    must still be empty afterwards for an "error" case."""
    with open(os.path.join(outdir, name + ".args"), "w") as f:
        f.write("\n".join(args) + "\n")
    cases.append((name, expect, list(subs)))


def save_text(outdir, fname, data):
    with open(os.path.join(outdir, fname), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- protobuf wire format by hand (for wrong wire types, lengths, nesting) ----------
def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def pb_field(num, wire, payload):
    """One field: tag, then payload (bytes for wire 2 get their length)."""
    tag = varint((num << 3) | wire)
    if wire == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload


def pb_nested(levels, nums, core=b""):
    """levels times the message fields nums (outermost first) wrapped around
    core, built from the inside out in linear time."""
    prefixes, size = [], len(core)
    for _ in range(levels):
        for num in reversed(nums):
            p = varint((num << 3) | 2) + varint(size)
            prefixes.append(p)
            size += len(p)
    return b"".join(reversed(prefixes)) + core


def external(name, dims, **kv):
    t = bare_tensor(name, F, dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in kv.items():
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def add_model(w):
    """X[4] + W -> Y, W an initializer (the external-data cases)."""
    return model([helper.make_node("Add", ["X", w.name], ["Y"], name="add1")],
                 [vi("X", list(w.dims) if w.dims else [4])], [vi("Y", None)], [w])


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
    # (an op type no ONNX opset defines: every op of the node suite runs now)
    save(outdir, "unsupported_op",
         model([helper.make_node("Frobnicate", ["X"], ["Y"], name="frob_node")],
               [vi("X", [3, 3])], [vi("Y", [])]),
         "error", "Frobnicate", "frob_node", "ai.onnx", "opset 13")
    # --- control flow: a branch that reads a name nothing defines, a forged state ------
    B = TensorProto.BOOL
    then_g = helper.make_graph([helper.make_node("Relu", ["X"], ["a"]),
                                helper.make_node("Neg", ["a"], ["t"])], "then", [],
                               [vi("t", [2])])
    else_g = helper.make_graph([helper.make_node("Add", ["X", "nowhere"], ["e"])], "else", [],
                               [vi("e", [2])])
    save(outdir, "if_reads_undefined",
         model([helper.make_node("If", ["C"], ["Y"], name="if_node", then_branch=then_g,
                                 else_branch=else_g)],
               [vi("C", [], B), vi("X", [2])], [vi("Y", [2])]),
         "error", "if_node", "else_branch", "nowhere")
    body = helper.make_graph([helper.make_node("Identity", ["c_in"], ["c_out"]),
                              helper.make_node("Neg", ["v_in"], ["v_out"])], "body",
                             [vi("i", [], TensorProto.INT64), vi("c_in", [], B), vi("v_in", [2])],
                             [vi("c_out", [], B), vi("v_out", [2])])
    save(outdir, "loop_without_end",
         model([helper.make_node("Loop", ["", "", "X"], ["Y"], name="loop_node", body=body)],
               [vi("X", [2])], [vi("Y", [2])]),
         "error", "loop_node", "never end")
    # a carried value with an empty name (fuzz_onnx found a read at values[-1])
    save(outdir, "loop_carried_empty",
         model([helper.make_node("Loop", ["M", "", ""], ["Y"], name="loop_node", body=body)],
               [vi("M", [], TensorProto.INT64)], [vi("Y", [2])]),
         "error", "loop_node", "no initial value")
    # --- training ops: unfolded into element-wise nodes (op_train.h) --------------------
    TR = [("ai.onnx.preview.training", 1)]
    scal = lambda name, v, dt: numpy_helper.from_array(np.array(v, dtype=dt), name)
    mom = lambda mode: model([helper.make_node("Momentum", ["R", "T", "X", "G", "V"], ["X2", "V2"],
                                               name="mom_node", domain="ai.onnx.preview.training",
                                               alpha=0.9, beta=0.1, mode=mode)],
                             [vi("X", [2]), vi("G", [2]), vi("V", [2])], [vi("X2", [2]), vi("V2", [2])],
                             inits=[scal("R", 0.1, np.float32), scal("T", 1, np.int64)],
                             extra_opsets=TR)
    save(outdir, "ok_momentum", mom("nesterov"), "ok")
    save(outdir, "momentum_bad_mode", mom("heavy"), "error", "mom_node", "Momentum", "mode",
         "expected \"standard\" or \"nesterov\"")
    save(outdir, "adagrad_int_iteration",
         model([helper.make_node("Adagrad", ["R", "T", "X", "G", "H"], ["X2", "H2"], name="ada_node",
                                 domain="ai.onnx.preview.training")],
               [vi("X", [2]), vi("G", [2]), vi("H", [2])], [vi("X2", [2]), vi("H2", [2])],
               inits=[scal("R", 0.1, np.float32), scal("T", 1.0, np.float32)], extra_opsets=TR),
         "error", "ada_node", "Adagrad", "input T must be an int64 scalar")
    # --- sequences and optionals: planned at compile time (op_seq.h) -------------------
    I64 = TensorProto.INT64
    pos = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    seq_at = lambda p: model([helper.make_node("SequenceConstruct", ["X", "X"], ["S"], name="make_seq"),
                              helper.make_node("SequenceAt", ["S", "P"], ["Y"], name="seq_at_node")],
                             [vi("X", [2])], [vi("Y", [2])], inits=[pos("P", p)], opset=17)
    save(outdir, "ok_sequence_at", seq_at(-2), "ok")
    save(outdir, "sequence_at_out_of_range", seq_at(2), "error", "seq_at_node", "SequenceAt",
         "position 2 is out of range")
    save(outdir, "sequence_op_on_tensor",
         model([helper.make_node("SequenceAt", ["X", "P"], ["Y"], name="seq_at_node")],
               [vi("X", [2])], [vi("Y", [2])], inits=[pos("P", 0)], opset=17),
         "error", "seq_at_node", "is a tensor, the op takes a sequence")
    save(outdir, "tensor_op_on_sequence",
         model([helper.make_node("SequenceConstruct", ["X"], ["S"], name="make_seq"),
                helper.make_node("Relu", ["S"], ["Y"], name="relu_node")],
               [vi("X", [2])], [vi("Y", [2])], opset=17),
         "error", "relu_node", "is a sequence; Relu takes tensors")
    save(outdir, "optional_get_empty",
         model([helper.make_node("Optional", [], ["O"], name="none_node",
                                 type=helper.make_tensor_type_proto(F, [2])),
                helper.make_node("OptionalGetElement", ["O"], ["Y"], name="get_node")],
               [vi("X", [2])], [vi("Y", [2])], opset=18),
         "error", "get_node", "empty optional")
    save(outdir, "sequence_input_without_value",
         model([helper.make_node("SequenceAt", ["S", "P"], ["Y"], name="seq_at_node")],
               [helper.make_tensor_sequence_value_info("S", F, [2])], [vi("Y", [2])],
               inits=[pos("P", 0)], opset=17),
         "error", "graph input \"S\" is a sequence", "--input")
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
    # an empty spatial axis: every window lies wholly in the padding (a fuzzer
    # find: AveragePool over x[1,3,0,2] with pads, once undefined behaviour in
    # the runtime's pooling kernel)
    save(outdir, "pool_zero_spatial_avg",
         model([helper.make_node("AveragePool", ["X"], ["Y"], name="pool_empty",
                                 kernel_shape=[2, 2], pads=[1, 1, 1, 1])],
               [vi("X", [1, 3, 0, 2])], [vi("Y", None)]),
         "error", "pool_empty", "AveragePool", "axis 2 has size 0")
    save(outdir, "pool_zero_spatial_max",
         model([helper.make_node("MaxPool", ["X"], ["Y"], name="pool_empty",
                                 kernel_shape=[2, 2], pads=[1, 1, 1, 1])],
               [vi("X", [1, 3, 4, 0])], [vi("Y", None)]),
         "error", "pool_empty", "MaxPool", "axis 3 has size 0")
    save(outdir, "pool_zero_spatial_global",
         model([helper.make_node("GlobalAveragePool", ["X"], ["Y"], name="gap_empty")],
               [vi("X", [1, 3, 0, 7])], [vi("Y", None)]),
         "error", "gap_empty", "GlobalAveragePool", "axis 2 has size 0")
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
    # stride 8 over a 3-wide kernel on 32: SAME pads by -5, head -2 (ONNX
    # Runtime's windows start inside the input): refused, not clamped
    save(outdir, "same_negative_pad", conv_model(auto_pad="SAME_UPPER", strides=[8, 8]),
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
    # a Scan whose scan input is an empty name (optional-input syntax): the body
    # reads every input, so it is refused by name (the fuzzer found a null read)
    sbody = helper.make_graph([helper.make_node("Add", ["s", "x"], ["s2"], name="b_add"),
                               helper.make_node("Identity", ["s2"], ["y"], name="b_id")],
                              "body", [vi("s", [2]), vi("x", [2])], [vi("s2", [2]), vi("y", [2])])
    save(outdir, "scan_missing_scan_input",
         model([helper.make_node("Scan", ["S0", ""], ["S", "Y"], name="scan1", body=sbody,
                                 num_scan_inputs=1)],
               [vi("S0", [2])], [vi("S", None), vi("Y", None)]),
         "error", "scan1", "Scan", "input 1 is missing")
    save(outdir, "scan8_missing_scan_input",
         model([helper.make_node("Scan", ["", "S0", ""], ["S", "Y"], name="scan8", body=sbody,
                                 num_scan_inputs=1)],
               [vi("S0", [1, 2])], [vi("S", None), vi("Y", None)], opset=8),
         "error", "scan8", "Scan", "input 2 is missing")
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

    more_cases(outdir, ok, base)

    # inputs that once crashed a fuzzer (tests/errors/regress/, kept as found)
    regress = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress")
    if os.path.isdir(regress):
        for f in sorted(os.listdir(regress)):
            if f.endswith(".onnx"):
                with open(os.path.join(regress, f), "rb") as src:
                    save_bytes(outdir, "regress_" + f[:-5], src.read(), "nocrash")

    with open(os.path.join(outdir, "manifest.tsv"), "w") as f:
        for name, expect, subs in cases:
            f.write("\t".join([name, expect] + subs) + "\n")


def more_cases(outdir, ok, base):
    """Cases by category (issue 7): files, wire format, dims, initializers and
    external data, graph structure, attributes, schedules, and commands that
    write files (nothing may be left behind)."""
    okb = ok.SerializeToString()
    relu = lambda: [helper.make_node("Relu", ["X"], ["Y"], name="relu1")]

    # --- files and the protobuf wire format ---------------------------------------------
    # ModelProto.graph (field 7) sent as a varint instead of a message
    save_bytes(outdir, "wire_graph_as_varint", varint(8) + b"\x08" + pb_field(7, 0, varint(5)),
               "error", "protobuf decoding failed")
    # GraphProto.name (field 2, a string) sent as a fixed32
    g = pb_field(2, 5, b"\x01\x02\x03\x04")
    save_bytes(outdir, "wire_string_as_fixed32", b"\x08\x08" + pb_field(7, 2, g),
               "error", "protobuf decoding failed")
    # TensorProto.dims (field 1, int64) sent as a fixed64 inside an initializer
    t = pb_field(1, 1, b"\x04" + b"\0" * 7) + pb_field(2, 0, varint(1)) + pb_field(8, 2, b"W")
    save_bytes(outdir, "wire_dims_as_fixed64", b"\x08\x08" + pb_field(7, 2, pb_field(5, 2, t)),
               "error", "protobuf decoding failed")
    # a deprecated group wire type (3) where the graph should be
    save_bytes(outdir, "wire_group_start", b"\x08\x08\x3b\x3c",
               "error", "protobuf decoding failed")
    # a length-delimited field whose length runs past the end of the file
    save_bytes(outdir, "length_past_end", b"\x08\x08" + b"\x3a" + varint(1000) + okb[:50],
               "error", "truncated")
    # a length of 2^62 bytes
    save_bytes(outdir, "length_huge", b"\x08\x08" + b"\x3a" + varint(1 << 62) + b"\0" * 16,
               "error", "truncated")
    # a varint that never ends (11 continuation bytes)
    save_bytes(outdir, "varint_too_long", b"\x08" + b"\xff" * 11 + b"\x01",
               "error", "protobuf decoding failed")
    save_bytes(outdir, "varint_cut", b"\x08\x08\x3a\x80", "error", "truncated")
    save_bytes(outdir, "truncated_in_weights", okb[: len(okb) - 3000], "error", "truncated")
    save_bytes(outdir, "one_byte", b"\x08", "error", "truncated")
    save_bytes(outdir, "zero_bytes_of_padding", b"\0" * 64, "error", "ONNX")
    # graph -> node -> attribute.g -> graph -> ... 50000 levels deep: the
    # decoder recurses once per level; the front-end must refuse this before.
    inner = pb_nested(50000, [1, 5, 6])
    save_bytes(outdir, "nesting_too_deep", b"\x08\x08" + pb_field(7, 2, inner),
               "error", "nest")
    # TypeProto.sequence_type.elem_type.sequence_type... on a graph input
    tp = pb_nested(100000, [4, 1])
    vinfo = pb_field(1, 2, b"X") + pb_field(2, 2, tp)
    save_bytes(outdir, "nesting_too_deep_type", b"\x08\x08" + pb_field(7, 2, pb_field(11, 2, vinfo)),
               "error", "nest")
    # a directory where the model should be
    os.makedirs(os.path.join(outdir, "a_folder.onnx"), exist_ok=True)
    cases.append(("a_folder", "error", ["a_folder.onnx", "not a regular file"]))

    # --- dims: negative, huge, products overflowing int64 and size_t ----------------
    save(outdir, "negative_output_dim",
         model(relu(), [vi("X", [2, 3])], [vi("Y", [2, -3])]), "error", "\"Y\"", "negative")
    save(outdir, "initializer_negative_dim",
         model([helper.make_node("Add", ["X", "Wneg"], ["Y"], name="add1")],
               [vi("X", [2, 2])], [vi("Y", None)], [bare_tensor("Wneg", F, [2, -2], b"")]),
         "error", "Wneg", "negative")
    save(outdir, "dims_product_overflows_int64",
         model(relu(), [vi("X", [1 << 62, 4])], [vi("Y", None)]), "error", "\"X\"", "overflow")
    # 2^31 x 2^31 elements fit in int64 (2^62), their bytes (2^64) do not fit in size_t
    save(outdir, "bytes_overflow_size_t",
         model(relu(), [vi("X", [1 << 31, 1 << 31])], [vi("Y", None)]), "error", "\"X\"", "overflow")
    save(outdir, "dim_int64_max",
         model(relu(), [vi("X", [(1 << 63) - 1])], [vi("Y", None)]), "error", "\"X\"", "overflow")
    save(outdir, "initializer_dims_overflow_size_t",
         model([helper.make_node("Add", ["X", "Whuge"], ["Y"], name="add1")],
               [vi("X", [2, 2])], [vi("Y", None)],
               [bare_tensor("Whuge", F, [1 << 31, 1 << 31], b"\0" * 16)]),
         "error", "Whuge", "overflow")
    # huge but representable: a 2^40-element input is a plan, not an allocation;
    # either a clear refusal or a successful inspect, never an allocation attempt
    save(outdir, "huge_input_inspect",
         model(relu(), [vi("X", [1 << 20, 1 << 20])], [vi("Y", None)]), "nocrash")
    # a zero dim before huge ones: no bytes, but products of the later dims overflow
    save(outdir, "zero_dim_then_huge",
         model([helper.make_node("Relu", ["X"], ["Y"], name="relu1"),
                helper.make_node("Transpose", ["Y"], ["Z"], name="tr1", perm=[2, 1, 0])],
               [vi("X", [0, 1 << 40, 1 << 40])], [vi("Z", None)]), "nocrash")
    save(outdir, "reshape_to_huge",
         model([helper.make_node("Reshape", ["X", "shape"], ["Y"], name="reshape_huge")],
               [vi("X", [2, 3])], [vi("Y", None)],
               [numpy_helper.from_array(np.array([1 << 62, 1 << 62], dtype=np.int64), "shape")]),
         "error", "reshape_huge")
    # ConstantOfShape folded at compile time: 2^40 floats must be refused, not allocated
    save(outdir, "constant_of_shape_huge",
         model([helper.make_node("ConstantOfShape", ["shape"], ["C"], name="cos_huge"),
                helper.make_node("Add", ["X", "C"], ["Y"], name="add1")],
               [vi("X", [1])], [vi("Y", None)],
               [numpy_helper.from_array(np.array([1 << 20, 1 << 20], dtype=np.int64), "shape")]),
         "error", "cos_huge")
    save(outdir, "constant_of_shape_negative",
         model([helper.make_node("ConstantOfShape", ["shape"], ["C"], name="cos_neg"),
                helper.make_node("Add", ["X", "C"], ["Y"], name="add1")],
               [vi("X", [1])], [vi("Y", None)],
               [numpy_helper.from_array(np.array([4, -4], dtype=np.int64), "shape")]),
         "error", "cos_neg")
    save(outdir, "pad_huge",
         model([helper.make_node("Pad", ["X", "pads"], ["Y"], name="pad_huge")],
               [vi("X", [1, 2])], [vi("Y", None)],
               [numpy_helper.from_array(np.array([0, 1 << 62, 0, 1 << 62], dtype=np.int64), "pads")]),
         "error", "pad_huge")

    # --- initializers -----------------------------------------------------------------
    long_raw = bare_tensor("W_long", F, [4], b"\0" * 20)
    save(outdir, "initializer_long_raw",
         model([helper.make_node("Add", ["X", "W_long"], ["Y"], name="add1")],
               [vi("X", [4])], [vi("Y", None)], [long_raw]),
         "error", "W_long", "20")
    few64 = bare_tensor("shape_few", TensorProto.INT64, [3])
    few64.int64_data.extend([1, 6])
    save(outdir, "initializer_few_int64",
         model([helper.make_node("Reshape", ["X", "shape_few"], ["Y"], name="reshape1")],
               [vi("X", [2, 3])], [vi("Y", None)], [few64]),
         "error", "shape_few", "2", "3")
    save(outdir, "initializer_no_name",
         model(relu(), [vi("X", [2])], [vi("Y", None)], [bare_tensor("", F, [1], b"\0" * 4)]),
         "error", "initializer", "no name")
    save(outdir, "initializer_complex",
         model([helper.make_node("Add", ["X", "Wc"], ["Y"], name="add1")],
               [vi("X", [2])], [vi("Y", None)],
               [bare_tensor("Wc", TensorProto.COMPLEX64, [2], b"\0" * 16)]),
         "error", "Wc", "complex64")
    save(outdir, "initializer_bad_dtype",
         model([helper.make_node("Add", ["X", "Wd"], ["Y"], name="add1")],
               [vi("X", [2])], [vi("Y", None)], [bare_tensor("Wd", 77, [2], b"\0" * 8)]),
         "error", "Wd", "77")
    save(outdir, "dangling_node_input",
         model([helper.make_node("Relu", ["X"], ["r"], name="relu1"),
                helper.make_node("Add", ["r", "ghost_value"], ["Y"], name="add_ghost")],
               [vi("X", [2])], [vi("Y", None)]),
         "error", "add_ghost", "ghost_value")

    # --- external data: outside the folder, past the end of the file -------------------
    save_text(outdir, "weights16.bin", b"\1" * 16)
    os.makedirs(os.path.join(outdir, "sub"), exist_ok=True)
    save(outdir, "external_data_absolute",
         add_model(external("W_abs", [4], location="/etc/passwd")), "error", "W_abs", "refused")
    save(outdir, "external_data_dotdot_inside",
         add_model(external("W_dd", [4], location="sub/../weights16.bin")), "error", "W_dd", "refused")
    save(outdir, "external_data_offset_past_end",
         add_model(external("W_off", [4], location="weights16.bin", offset="12")),
         "error", "W_off", "past the end")
    save(outdir, "external_data_offset_huge",
         add_model(external("W_offh", [4], location="weights16.bin", offset=str((1 << 63) - 1))),
         "error", "W_offh", "past the end")
    save(outdir, "external_data_negative_offset",
         add_model(external("W_noff", [4], location="weights16.bin", offset="-4")),
         "error", "W_noff", "offset")
    save(outdir, "external_data_bad_offset",
         add_model(external("W_boff", [4], location="weights16.bin", offset="12abc")),
         "error", "W_boff", "offset")
    save(outdir, "external_data_length_mismatch",
         add_model(external("W_len", [4], location="weights16.bin", length="8")),
         "error", "W_len", "length")
    save(outdir, "external_data_no_location",
         add_model(external("W_noloc", [4], offset="0")), "error", "W_noloc", "location")
    save(outdir, "external_data_folder",
         add_model(external("W_dir", [4], location="sub")), "error", "W_dir", "regular file")
    save(outdir, "external_data_empty_location",
         add_model(external("W_empty", [4], location="")), "error", "W_empty", "refused")
    ok_ext = add_model(external("W_fine", [4], location="weights16.bin"))
    save(outdir, "ok_external_data", ok_ext, "ok")

    # --- graph structure ----------------------------------------------------------------
    save(outdir, "cycle_three_nodes",
         model([helper.make_node("Add", ["X", "c3"], ["c1"], name="cyc_a"),
                helper.make_node("Relu", ["c1"], ["c2"], name="cyc_b"),
                helper.make_node("Sigmoid", ["c2"], ["c3"], name="cyc_c"),
                helper.make_node("Relu", ["c3"], ["Y"], name="after")],
               [vi("X", [2])], [vi("Y", None)]),
         "error", "cycle", "cyc_")
    save(outdir, "output_shadows_initializer",
         model([helper.make_node("Relu", ["X"], ["Wi"], name="relu_shadow")],
               [vi("X", [4])], [vi("Wi", None)], [weights("Wi", [4])]),
         "error", "relu_shadow", "Wi")
    save(outdir, "graph_output_twice",
         model(relu(), [vi("X", [2])], [vi("Y", None), vi("Y", None)]), "error", "\"Y\"", "twice")
    save(outdir, "graph_input_twice",
         model(relu(), [vi("X", [2]), vi("X", [2])], [vi("Y", None)]), "error", "\"X\"", "twice")
    save(outdir, "node_no_op_type",
         model([helper.make_node("", ["X"], ["Y"], name="nameless_op")],
               [vi("X", [2])], [vi("Y", None)]), "error", "nameless_op", "op_type")
    save(outdir, "too_many_outputs",
         model([helper.make_node("Relu", ["X"], ["Y", "Y2"], name="relu_two")],
               [vi("X", [2])], [vi("Y", None)]), "error", "relu_two", "outputs")
    save(outdir, "opset_zero",
         model(relu(), [vi("X", [2])], [vi("Y", None)], opset=0), "error", "opset 0")
    save(outdir, "opset_negative",
         model(relu(), [vi("X", [2])], [vi("Y", None)], opset=-5), "error", "opset")
    # imports only com.example, yet uses Relu of the default domain
    m = model(relu(), [vi("X", [2])], [vi("Y", None)])
    del m.opset_import[:]
    m.opset_import.extend([helper.make_opsetid("com.example", 1)])
    save(outdir, "no_default_domain_import", m, "error", "relu1", "does not import")
    save(outdir, "sequence_input",
         model(relu(), [helper.make_tensor_sequence_value_info("X", F, [2])], [vi("Y", None)]),
         "error", "\"X\"", "sequence")
    save(outdir, "input_no_name",
         model(relu(), [vi("", [2])], [vi("Y", None)]), "error", "input", "no name")
    # an attribute that refers to an attribute of an enclosing function
    m = conv_model()
    a = m.graph.node[0].attribute.add()
    a.name, a.ref_attr_name, a.type = "strides", "outer_strides", 7
    save(outdir, "function_attribute_ref", m, "error", "conv1", "strides", "function attribute")

    # no nodes at all: outputs that are an initializer and an input (valid ONNX;
    # found by fuzz_onnx: the sort passed NULL to memcpy)
    save(outdir, "no_nodes",
         model([], [vi("X", [4])], [vi("Wi", None), vi("X", None)], [weights("Wi", [4])]),
         "nocrash")

    # --- a required input or output with an empty name -----------------------------------
    # (the empty output once reached Conv's cost with value index -1: a read
    # before the values array, found by fuzz_onnx)
    save(outdir, "required_input_empty",
         model([helper.make_node("Conv", ["X", ""], ["Y"], name="conv_no_w")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)]),
         "error", "conv_no_w", "input 1", "omitted")
    save(outdir, "required_output_empty",
         model([helper.make_node("Conv", ["X", "W"], [""], name="conv_no_y"),
                helper.make_node("Relu", ["X"], ["Y"], name="relu_y")],
               [vi("X", [1, 3, 8, 8])], [vi("Y", None)], [weights("W", [4, 3, 1, 1])]),
         "error", "conv_no_y", "output 0", "omitted")

    # --- attributes of the wrong type ---------------------------------------------------
    save(outdir, "attr_kernel_shape_string", conv_model(kernel_shape="3x3"),
         "error", "conv1", "kernel_shape")
    save(outdir, "attr_auto_pad_int", conv_model(auto_pad=1), "error", "conv1", "auto_pad")
    save(outdir, "attr_axis_floats",
         model([helper.make_node("Softmax", ["X"], ["Y"], name="softmax_f", axis=[1.0])],
               [vi("X", [2, 3])], [vi("Y", None)]),
         "error", "softmax_f", "axis")
    m = conv_model()
    a = m.graph.node[0].attribute.add()
    a.name, a.type = "group", TensorProto.UNDEFINED  # AttributeProto.UNDEFINED = 0
    a.i = 1
    save(outdir, "attr_undefined_type", m, "nocrash")
    save(outdir, "attr_tensor_empty",
         model([helper.make_node("Constant", [], ["Y"], name="const_empty", value_ints=[])],
               [], [vi("Y", None)]), "nocrash")
    m = model([helper.make_node("Constant", [], ["Y"], name="const_bad")], [], [vi("Y", None)])
    a = m.graph.node[0].attribute.add()
    a.name, a.type = "value", 4  # TENSOR, but no tensor
    save(outdir, "attr_tensor_missing", m, "error", "const_bad", "value")
    save(outdir, "gather_index_out_of_range",
         model([helper.make_node("Gather", ["data", "idx"], ["Y"], name="gather_oob", axis=0),
                helper.make_node("Add", ["X", "Y"], ["Z"], name="add1")],
               [vi("X", [1])], [vi("Z", None)],
               [weights("data", [4]), numpy_helper.from_array(np.array([9], np.int64), "idx")]),
         "error", "gather_oob", "9")

    # --- bad schedules: `run MODEL --schedule FILE --output OUT/y.pb` ----------------
    # the model is the control ok_fuzz_base (Conv, Relu, MaxPool, Flatten, Gemm,
    # Softmax: 4 layers, Relu fused into the Conv and Flatten a view); expected messages follow src/opt/schedule.h (FILE:LINE:COL, the
    # block and the key).
    def sched_case(name, text, expect, *subs, extra=()):
        save_text(outdir, name + ".json", text)
        save_command(outdir, name, ["run", "@DIR@/ok_fuzz_base.onnx", "--schedule",
                                    "@DIR@/%s.json" % name, "--output", "@OUT@/y.pb"] + list(extra),
                     expect, *subs)

    sched_case("sched_empty_file", "", "error", "sched_empty_file.json")
    sched_case("sched_syntax", '{"version": 1, "blocks": [ {"first": 0,, } ]}',
               "error", "sched_syntax.json:1:")
    sched_case("sched_truncated", '{"version": 1, "blocks": [ {"first": 0, "count"',
               "error", "sched_truncated.json:1:")
    sched_case("sched_not_object", '[1, 2, 3]', "error", "sched_not_object.json:1:1")
    sched_case("sched_unknown_key", '{"version": 1, "blocks": [], "colour": "red"}',
               "error", "sched_unknown_key.json:1:", "colour")
    sched_case("sched_wrong_type", '{"version": 1, "blocks": [{"first": 0, "count": "six", "mp": 1}]}',
               "error", "sched_wrong_type.json:1:", "count", "string")
    sched_case("sched_bad_version", '{"version": 7, "blocks": [{"first": 0, "count": 4, "mp": 1}]}',
               "error", "sched_bad_version.json:1:", "version")
    sched_case("sched_mp_zero", '{"version": 1, "blocks": [{"first": 0, "count": 4, "mp": 0}]}',
               "error", "sched_mp_zero.json:1:", "mp")
    sched_case("sched_mp_too_many",
               '{"version": 1, "blocks": [{"first": 0, "count": 4, "mp": 64}]}',
               "error", "sched_mp_too_many.json", "mp", "64")
    sched_case("sched_overlap",
               '{"version": 1, "blocks": [{"first": 0, "count": 3, "mp": 1},\n'
               ' {"first": 2, "count": 3, "mp": 1}]}',
               "error", "sched_overlap.json:2:", "block 1")
    sched_case("sched_gap",
               '{"version": 1, "blocks": [{"first": 0, "count": 2, "mp": 1},\n'
               ' {"first": 3, "count": 2, "mp": 1}]}',
               "error", "sched_gap.json:2:", "block 1")
    sched_case("sched_layer_count",
               '{"version": 1, "layers": 50, "blocks": [{"first": 0, "count": 40, "mp": 1}]}',
               "error", "sched_layer_count.json", "50")
    sched_case("sched_bad_split",
               '{"version": 1, "blocks": [{"first": 0, "count": 4, "mp": 1, "split": "diagonal"}]}',
               "error", "sched_bad_split.json:1:", "split", "diagonal")
    sched_case("sched_bad_precision",
               '{"version": 1, "blocks": [{"first": 0, "count": 4, "mp": 1, "precision": "fp8"}]}',
               "error", "sched_bad_precision.json:1:", "precision", "fp8")
    sched_case("sched_negative_strip",
               '{"version": 1, "blocks": [{"first": 0, "count": 4, "mp": 1, "strip": -1}]}',
               "error", "sched_negative_strip.json:1:", "strip")
    sched_case("sched_huge_number",
               '{"version": 1, "blocks": [{"first": 0, "count": 99999999999999999999999, "mp": 1}]}',
               "error", "sched_huge_number.json:1:", "count")
    sched_case("sched_wrong_node",
               '{"version": 1, "blocks": [{"first": 0, "count": 4, "first_node": "no_such_conv", "mp": 1}]}',
               "error", "sched_wrong_node.json", "no_such_conv")
    sched_case("sched_bad_utf8", b'{"version": 1, "model": "\xff\xfe", "blocks": []}',
               "nocrash")
    sched_case("sched_deep_nesting", "[" * 100000 + "]" * 100000, "error",
               "sched_deep_nesting.json:1:")
    save_command(outdir, "sched_missing_file",
                 ["run", "@DIR@/ok_fuzz_base.onnx", "--schedule", "@DIR@/no_such_schedule.json",
                  "--output", "@OUT@/y.pb"], "error", "no_such_schedule.json")
    save_command(outdir, "sched_and_strategy",
                 ["run", "@DIR@/ok_fuzz_base.onnx", "--schedule", "@DIR@/sched_syntax.json",
                  "--strategy", "fixed-mp", "--output", "@OUT@/y.pb"], "error", "--schedule",
                 "--strategy")

    # run-time indices out of range fail the run naming the layer (ONNX Runtime
    # refuses them too); before, the kernels read zeros and the run exited 0
    save(outdir, "ok_gather_rt", model(
        [helper.make_node("Gather", ["X", "idx"], ["Y"], name="gather_rt", axis=0)],
        [vi("idx", [2], TensorProto.INT64)], [vi("Y", [2, 3])],
        [numpy_helper.from_array(np.arange(15, dtype=np.float32).reshape(5, 3), "X")]), "ok")
    for nm, vals in (("gather_rt_oob", [1, 7]), ("gather_rt_oob_neg", [-6, 0])):
        save_text(outdir, nm + ".pb", numpy_helper.from_array(
            np.array(vals, dtype=np.int64), "idx").SerializeToString())
        save_command(outdir, nm, ["run", "@DIR@/ok_gather_rt.onnx", "--input", "@DIR@/%s.pb" % nm,
                                  "--output", "@OUT@/y.pb"], "error", "gather_rt", "out of range")
    save_text(outdir, "gather_rt_neg_ok.pb", numpy_helper.from_array(
        np.array([-5, 4], dtype=np.int64), "idx").SerializeToString())
    save_command(outdir, "ok_gather_rt_neg", ["run", "@DIR@/ok_gather_rt.onnx", "--input",
                                              "@DIR@/gather_rt_neg_ok.pb", "--output",
                                              "@OUT@/y.pb"], "ok")
    # the same for every other layer that takes indices or positions at run
    # time (rt_index_cases.py)
    rt_index_cases.add(outdir, model, save, save_command, save_text)

    # --- commands that write: on an error nothing is left in @OUT@ ----------------------
    save_command(outdir, "zoo_unknown_name", ["zoo", "resnet1000", "-o", "@OUT@/m.onnx"],
                 "error", "resnet1000")
    save_command(outdir, "zoo_output_is_folder", ["zoo", "alexnet", "-o", "@DIR@/sub"],
                 "error", "sub")
    save_command(outdir, "zoo_output_in_missing_folder",
                 ["zoo", "alexnet", "-o", "@OUT@/no/such/folder/m.onnx"], "error", "m.onnx")
    save_command(outdir, "run_output_is_folder",
                 ["run", "@DIR@/ok_fuzz_base.onnx", "--output", "@DIR@/sub"], "error", "sub")
    save_command(outdir, "run_bad_input_file",
                 ["run", "@DIR@/ok_fuzz_base.onnx", "--input", "@DIR@/text_file.onnx",
                  "--output", "@OUT@/y.pb"], "error", "text_file.onnx", "TensorProto")
    save_command(outdir, "compile_bad_schedule",
                 ["compile", "@DIR@/ok_fuzz_base.onnx", "-o", "@OUT@/gen", "--schedule",
                  "@DIR@/sched_gap.json"], "error", "sched_gap.json", "block 1")
    save_command(outdir, "build_truncated_model",
                 ["build", "@DIR@/truncated.onnx", "-o", "@OUT@/exe"], "error", "truncated")
    save_command(outdir, "compile_output_is_file",
                 ["compile", "@DIR@/ok_fuzz_base.onnx", "-o", "@DIR@/weights16.bin"],
                 "error", "weights16.bin")
    save_command(outdir, "run_too_many_outputs",
                 ["run", "@DIR@/ok_fuzz_base.onnx", "--output", "@OUT@/y.pb",
                  "--output", "@OUT@/y2.pb"], "error", "outputs")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_corpus.py OUTDIR")
    main(sys.argv[1])
