#!/usr/bin/env python3
"""string_models.py DIR - models of the string ops (issue 39) and their inputs,
seeded, for tests/parts/39-strings.sh: DIR/NAME.onnx, DIR/NAME.in_K.pb; prints
one line per model, `NAME N_IN N_OUT`, then `bad NAME N_IN PATTERN` for the
models paleozoic must refuse with exit 2 and PATTERN in the message.
Strings mix ASCII, UTF-8 (accented, CJK), empty strings and whitespace runs."""
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = random.Random(39)
WORDS = ["a", "b", "cat", "Dog", "", "hello", "WORLD", "é", "Éa", "中文", "x y", "42", "a.b",
         "foo@gmail.com", "bar@yahoo.com", "zz@hotmail.com", "line\nbreak", "ß", "é1", "€", "😀",
         "ab\u00e9", "\u00e9\u00e9"]
S = TensorProto.STRING


def arr(shape, words=WORDS):
    n = int(np.prod(shape)) if shape else 1
    return np.array([rng.choice(words) for _ in range(n)], dtype=object).reshape(shape)


def save(name, nodes, ins, outs, values, opsets=(("", 20),), inits=()):
    g = helper.make_graph(nodes, name, ins, outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = 9
    onnx.save(m, os.path.join(out, name + ".onnx"))
    for k, v in enumerate(values):
        t = numpy_helper.from_array(v, ins[k].name)
        with open(os.path.join(out, f"{name}.in_{k}.pb"), "wb") as f:
            f.write(t.SerializeToString())


def vi(name, ty, shape):
    return helper.make_tensor_value_info(name, ty, shape)


lines, bad = [], []


def case(name, nodes, ins, outs, values, **kw):
    save(name, nodes, ins, outs, values, **kw)
    lines.append(f"{name} {len(ins)} {len(outs)}")


def refused(name, pattern, nodes, ins, outs, values, **kw):
    save(name, nodes, ins, outs, values, **kw)
    bad.append(f"bad {name} {len(ins)} {pattern}")


# Equal and StringConcat, broadcast
for i, (sa, sb) in enumerate([([3, 4], [4]), ([2, 1], [1, 3]), ([], []), ([5], [1]), ([0, 2], [2])]):
    few = ["a", "b", "", "é"]
    case(f"equal_{i}", [helper.make_node("Equal", ["A", "B"], ["Y"])],
         [vi("A", S, sa), vi("B", S, sb)], [vi("Y", TensorProto.BOOL, None)],
         [arr(sa, few), arr(sb, few)])
    case(f"concat_{i}", [helper.make_node("StringConcat", ["A", "B"], ["Y"])],
         [vi("A", S, sa), vi("B", S, sb)], [vi("Y", S, None)], [arr(sa), arr(sb)])

# RegexFullMatch: RE2 features the translation handles
PATTERNS = [r"\w+", r"[\w.\-]+@(gmail|yahoo)\.com", r"\d+", r"\D*", r"a.b", r".*", r"(?:a|b)+",
            r"[^a-z]*", r"[a-c\d]{1,3}", r"\s*\S+\s*", r"x*?y?", r"[]a]", r"(?P<n>cat)|Dog",
            r"[\s\w]+", r"\b\w+\b", r"(é|中文)", r"\A.*\z", r"line\nbreak", r"[^\n]*",
            # one character is one code point: non-ASCII words against ., \W, \S, [^...]
            r".", r"..", r"É.", r"\W", r"\S\S", r"[^a-z]", r"[^a]+", r"\D", r".\w"]
for i, p in enumerate(PATTERNS):
    case(f"regex_{i}", [helper.make_node("RegexFullMatch", ["X"], ["Y"], pattern=p)],
         [vi("X", S, [len(WORDS)])], [vi("Y", TensorProto.BOOL, None)],
         [np.array(WORDS, dtype=object)])

# StringSplit: delimiters, maxsplit, whitespace runs
# (whitespace is spaces only here: ONNX Runtime 1.17 splits at ' ' alone, the
# spec and we at any ASCII whitespace)
TEXT = ["a,b,,c", " lead and  trail ", "", "no-sep", "x--y--z", ",", "  ", "é,中文,",
        "one two  three four ", "--a--"]
for i, (d, ms) in enumerate([(None, None), (",", None), ("--", None), ("", 1), (",", 0),
                             (",", 2), (None, 2), ("--", 1), (" ", None)]):
    kw = {}
    if d is not None:
        kw["delimiter"] = d
    if ms is not None:
        kw["maxsplit"] = ms
    x = np.array(TEXT, dtype=object)
    if i % 3 == 1:
        x = x.reshape(2, 5)
    case(f"split_{i}", [helper.make_node("StringSplit", ["X"], ["Y", "Z"], **kw)],
         [vi("X", S, list(x.shape))], [vi("Y", S, None), vi("Z", TensorProto.INT64, None)], [x])

# StringNormalizer
NW = ["Monday", "monday", "MONDAY", "tuesday", "Éa", "é", "Straße", "", "x"]
for i, (action, sens, stop, two) in enumerate([
        ("LOWER", 1, ["monday"], False), ("UPPER", 0, ["monday", "x"], True),
        ("NONE", 0, ["MONDAY"], False), ("NONE", 1, ["x"], False), ("UPPER", 1, None, True),
        ("LOWER", 0, ["éa"], False), ("UPPER", 0, ["Monday", "tuesday", "Éa", "Straße", "x"], False)]):
    # locale C.UTF-8: ONNX Runtime's default (en_US.UTF-8) may be missing
    kw = {"case_change_action": action, "is_case_sensitive": sens, "locale": "C.UTF-8"}
    if stop is not None:
        kw["stopwords"] = stop
    x = np.array(NW, dtype=object).reshape([1, len(NW)] if two else [len(NW)])
    case(f"norm_{i}", [helper.make_node("StringNormalizer", ["X"], ["Y"], **kw)],
         [vi("X", S, list(x.shape))], [vi("Y", S, None)], [x], opsets=(("", 10),))

# LabelEncoder (ai.onnx.ml 2 and 4)
ML2, ML4 = (("", 13), ("ai.onnx.ml", 2)), (("", 13), ("ai.onnx.ml", 4))
keys = ["a", "b", "cat", "é", ""]
le = [
    ("s2i", S, TensorProto.INT64, dict(keys_strings=keys, values_int64s=[3, 1, 4, 1, 5],
                                       default_int64=-7), ML2, arr([3, 4])),
    ("s2s", S, S, dict(keys_strings=keys, values_strings=["A", "B", "C", "D", "E"]), ML2,
     arr([6])),
    ("i2s", TensorProto.INT64, S, dict(keys_int64s=[1, 2, -5], values_strings=["one", "two", "m"],
                                       default_string="?"), ML2,
     np.array([1, 2, 3, -5, 0, 2], dtype=np.int64)),
    ("f2f", TensorProto.FLOAT, TensorProto.FLOAT, dict(keys_floats=[0.5, -1.0, 2.0],
                                                        values_floats=[10.0, 20.0, 30.0]), ML2,
     np.array([0.5, 2.0, 7.0, -1.0], dtype=np.float32)),
    ("t_s2i", S, TensorProto.INT64,
     dict(keys_tensor=helper.make_tensor("k", S, [3], [b"a", b"b", b"cat"]),
          values_tensor=helper.make_tensor("v", TensorProto.INT64, [3], [7, 8, 9]),
          default_tensor=helper.make_tensor("d", TensorProto.INT64, [1], [-1])), ML4, arr([7])),
    ("t_i2s", TensorProto.INT64, S,
     dict(keys_tensor=helper.make_tensor("k", TensorProto.INT64, [2], [4, 5]),
          values_tensor=helper.make_tensor("v", S, [2], [b"four", "五".encode()]),
          default_tensor=helper.make_tensor("d", S, [1], [b"none"])), ML4,
     np.array([[4, 5], [6, 4]], dtype=np.int64)),
]
for name, xt, yt, attrs, ops, x in le:
    case(f"label_{name}", [helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml",
                                            **attrs)],
         [vi("X", xt, list(x.shape))], [vi("Y", yt, None)], [x], opsets=ops)

# strings made and read inside the graph (int64 in and out): also built as a program
case("chain", [helper.make_node("LabelEncoder", ["X"], ["S"], domain="ai.onnx.ml",
                                keys_int64s=[1, 2, 3], values_strings=["a", "é", "c"]),
               helper.make_node("StringConcat", ["S", "S"], ["S2"]),
               helper.make_node("LabelEncoder", ["S2"], ["Y"], domain="ai.onnx.ml",
                                keys_strings=["aa", "éé"], values_int64s=[10, 20],
                                default_int64=-1)],
     [vi("X", TensorProto.INT64, [7])], [vi("Y", TensorProto.INT64, None)],
     [np.array([1, 2, 3, 4, 1, 3, 2], dtype=np.int64)], opsets=(("", 20), ("ai.onnx.ml", 2)))

# refusals
one = [np.array(["a", "b"], dtype=object)]
X = [vi("X", S, [2])]
B = [vi("Y", TensorProto.BOOL, None)]
for i, (p, why) in enumerate([("(?i)abc", "flags"), (r"\p{L}+", "Unicode classes"),
                              ("a(b", "not a valid regex"), (r"\x41", "this escape"),
                              (r"[\W]", "inside a bracket"),
                              ("[éa]", "a non-ASCII character inside a bracket")]):
    refused(f"bad_regex_{i}", why, [helper.make_node("RegexFullMatch", ["X"], ["Y"], pattern=p)],
            X, B, one)
refused("bad_equal_types", "string compares with a string only",
        [helper.make_node("Equal", ["X", "N"], ["Y"])], X + [vi("N", TensorProto.INT64, [2])], B,
        one + [np.array([1, 2], dtype=np.int64)], opsets=(("", 19),))
refused("bad_concat_float", "expected string", [helper.make_node("StringConcat", ["X", "F"], ["Y"])],
        X + [vi("F", TensorProto.FLOAT, [2])], [vi("Y", S, None)],
        one + [np.array([1, 2], dtype=np.float32)])
refused("bad_add_strings", "string", [helper.make_node("Add", ["X", "X"], ["Y"])], X,
        [vi("Y", S, None)], one, opsets=(("", 14),))
refused("bad_split_maxsplit", "maxsplit", [helper.make_node("StringSplit", ["X"], ["Y", "Z"],
                                                             maxsplit=-1)],
        X, [vi("Y", S, None), vi("Z", TensorProto.INT64, None)], one)
refused("bad_split_runtime", "must be a constant",
        [helper.make_node("StringConcat", ["X", "X"], ["C"]),
         helper.make_node("StringSplit", ["C"], ["Y", "Z"])],
        X, [vi("Y", S, None), vi("Z", TensorProto.INT64, None)], one)
refused("bad_norm_action", "case_change_action",
        [helper.make_node("StringNormalizer", ["X"], ["Y"], case_change_action="TITLE")], X,
        [vi("Y", S, None)], one, opsets=(("", 10),))
refused("bad_norm_locale", "locale",
        [helper.make_node("StringNormalizer", ["X"], ["Y"], locale="tr_TR")], X,
        [vi("Y", S, None)], one, opsets=(("", 10),))
refused("bad_label_two_keys", "one way only",
        [helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml", keys_strings=["a"],
                          keys_int64s=[1], values_int64s=[1])], X,
        [vi("Y", TensorProto.INT64, None)], one, opsets=ML2)
refused("bad_label_count", "pair up",
        [helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml", keys_strings=["a", "b"],
                          values_int64s=[1])], X, [vi("Y", TensorProto.INT64, None)], one, opsets=ML2)
refused("bad_label_keytype", "must agree",
        [helper.make_node("LabelEncoder", ["X"], ["Y"], domain="ai.onnx.ml", keys_int64s=[1],
                          values_int64s=[1])], X, [vi("Y", TensorProto.INT64, None)], one, opsets=ML2)
print("\n".join(lines + bad))
