#!/bin/sh
# 45-int-eltwise.sh BUILD_DIR - the integer BINARY and the COMPARE fast
# kernels (rt/kernels/eltwise/int_binary_*.c, compare_*.c: fast.h) in
# whole models written here (onnx.helper, opset 13), against ONNX Runtime
# 1.17: A [2, 3, 37] and B of the same shape, a scalar, [2, 3, 1] (along
# the last axis) or [37] (a row), int32 and int64 (B nonzero, -1 among its
# values, signs mixed): Add, Sub, Mul, Div, Max, Min, Mod (fmod 0 and 1),
# Equal, Less, LessOrEqual, Greater, GreaterOrEqual and Where(Less, A, B);
# float32 A and B (ties): the comparisons and Where; BitwiseAnd/Or/Xor/Not
# (opset 18) on int8..int64 and uint8..uint64, BitShift both ways on uint8/
# 32/64 (counts below the width), Pow on int32/int64 (negative exponents
# of bases +-1 and 3), one broadcast each. Each model runs at
# the CPU's ISA (AVX-512 where it has it), PZ_ISA=avx2 (compare_avx2.c),
# PZ_ISA=scalar (the plain C twins) and PZ_ISA=ref (the references), the ref one at 1 and 3 threads:
# every output has the bits of ONNX Runtime's; int32 along the last axis
# also as a built program. float32 Max, Min, Mod (fmod 1), Pow (x^2, x^3 of
# negative bases, |a| + 0.1 to random powers) per broadcast at the CPU's
# ISA, avx2 (binary_avx2.c), scalar and ref: the bits of ORT's, the general
# Pows within 1e-5.
# The same functions on NCHW16c maps of 40 channels after a conv (each
# binary16c broadcast: same shape, per channel, one value) and in a
# dynamic region (after a Compress by a run-time condition), at the CPU's
# ISA (3 threads), avx2, scalar (the NCHW16c one) and ref, likewise.
# Under a sanitizer: the models of one shape
# (along the last axis), the NCHW16c and dynamic ones at the CPU's ISA.
# Ends with `N passed, N failed`.
set -u
NAME=45-int-eltwise
. "$(dirname "$0")/lib.sh"
part_init "$@"

"$PY" -c 'import onnx, numpy' 2>/dev/null || skip_part "no onnx/numpy for $PY"
[ "$have_ort" = 1 ] || skip_part "no node or node_modules/onnxruntime-node"

cat >"$T/make.py" <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out, modes = sys.argv[1], sys.argv[2].split(",")
rng = np.random.default_rng(0)
A = [2, 3, 37]
B = {"same": A, "scalar": [], "last": [2, 3, 1], "row": [37]}
ARITH = [("Add", {}), ("Sub", {}), ("Mul", {}), ("Div", {}), ("Max", {}), ("Min", {}),
         ("Mod", {"fmod": 0}), ("Mod", {"fmod": 1})]
CMP = ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"]
names = []
for dt, et in (("int32", T.INT32), ("int64", T.INT64), ("float32", T.FLOAT)):
    for mode in modes:
        nodes, outs = [], []
        ops = CMP if dt == "float32" else [op for op, _ in ARITH] + CMP
        attrs = [{}] * len(CMP) if dt == "float32" else [k for _, k in ARITH] + [{}] * len(CMP)
        for i, (op, kw) in enumerate(zip(ops, attrs)):
            nodes.append(h.make_node(op, ["a", "b"], ["y%d" % i], **kw))
            outs.append(h.make_tensor_value_info("y%d" % i, T.BOOL if op in CMP else et, None))
        nodes.append(h.make_node("Less", ["a", "b"], ["c"]))
        nodes.append(h.make_node("Where", ["c", "a", "b"], ["w"]))
        outs.append(h.make_tensor_value_info("w", et, None))
        g = h.make_graph(nodes, "g", [h.make_tensor_value_info("a", et, A),
                                      h.make_tensor_value_info("b", et, B[mode])], outs)
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
        m.ir_version = 8
        name = "%s_%s" % (dt, mode)
        onnx.save(m, "%s/%s.onnx" % (out, name))
        if dt == "float32":   # ties; no -0: ORT 1.17's Where gives +0 for it
            a = (rng.integers(-3, 4, A) * 0.5).astype(np.float32)
            b = np.asarray(rng.integers(-3, 4, B[mode]) * 0.5).astype(np.float32)
        else:   # |a| up to 2^20, b nonzero: no overflow, no division by 0
            a = rng.integers(-(1 << 20), 1 << 20, A)
            a[0, 0, :8] = [0, 1, -1, 7, -7, 5, -5, 12]
            b = rng.integers(-9, 10, B[mode])
            b = np.where(b == 0, -1, b)
            a, b = a.astype(dt), np.asarray(b).astype(dt)
        for k, v in (("a", a), ("b", b)):
            with open("%s/%s.%s.pb" % (out, name, k), "wb") as f:
                f.write(nh.from_array(np.asarray(v), k).SerializeToString())
        names.append("%s:%d" % (name, len(outs)))
# BitwiseAnd/Or/Xor/Not (opset 18) on the eight integer types, BitShift both
# ways on uint8/32/64 (ORT 1.17 has no uint16 one), Pow on int32/int64; one
# broadcast each, in turn (under a sanitizer uint32 and int64)
INTS = [("int8", T.INT8), ("uint8", T.UINT8), ("int16", T.INT16), ("uint16", T.UINT16),
        ("int32", T.INT32), ("uint32", T.UINT32), ("int64", T.INT64), ("uint64", T.UINT64)]
for i, (dt, et) in enumerate(INTS):
    if len(modes) == 1 and dt not in ("uint32", "int64"):
        continue
    for mode in [modes[i % len(modes)]]:
        ops = [("BitwiseAnd", {}), ("BitwiseOr", {}), ("BitwiseXor", {})]
        if dt in ("uint8", "uint32", "uint64"):
            ops += [("BitShift", {"direction": "LEFT"}), ("BitShift", {"direction": "RIGHT"})]
        nodes = [h.make_node(op, ["a", "b"], ["y%d" % i], **kw) for i, (op, kw) in enumerate(ops)]
        nodes.append(h.make_node("BitwiseNot", ["a"], ["y%d" % len(ops)]))
        inits = []
        if dt in ("int32", "int64"):   # Pow without overflow (ORT's goes through double):
            inits = [nh.from_array(np.array(v, dt), "k%d" % v) for v in (1, 3, 4, 6, 9, 10, 19)]
            k = len(nodes)             # -9..9 ** 0..9, and {-1, 1, 3} ** -3..2 (no 0 ** -e)
            for op, ins, o in (("Mod", "a k19", "m19"), ("Sub", "m19 k9", "p0"),
                               ("Mod", "b k10", "e0"), ("Pow", "p0 e0", "y%d" % k),
                               ("Mod", "a k4", "m4"), ("Sub", "m4 k1", "m4s"),
                               ("BitwiseOr", "m4s k1", "p1"), ("Mod", "b k6", "m6"),
                               ("Sub", "m6 k3", "e1"), ("Pow", "p1 e1", "y%d" % (k + 1))):
                nodes.append(h.make_node(op, ins.split(), [o]))
        n_out = len(ops) + 1 + (2 if inits else 0)
        outs = [h.make_tensor_value_info("y%d" % i, et, None) for i in range(n_out)]
        g = h.make_graph(nodes, "g", [h.make_tensor_value_info("a", et, A),
                                      h.make_tensor_value_info("b", et, B[mode])], outs, inits)
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
        m.ir_version = 8
        name = "bits_%s_%s" % (dt, mode)
        onnx.save(m, "%s/%s.onnx" % (out, name))
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, A, dtype=dt, endpoint=True)
        a.flat[:6] = [0, info.max, info.min, 1, 5, 3]
        if dt.startswith("uint"):   # shift counts 0 to the width - 1: ORT 1.17's C++
            b = rng.integers(0, info.bits, B[mode]).astype(dt)   # shift is undefined past
        #                   # it (x86 wraps the count; ours gives 0: rt_int_binary, numpy)
        else:
            b = rng.integers(info.min, info.max, B[mode], dtype=dt, endpoint=True)
        for k, v in (("a", a), ("b", b)):
            with open("%s/%s.%s.pb" % (out, name, k), "wb") as f:
                f.write(nh.from_array(np.asarray(v, dtype=dt), k).SerializeToString())
        names.append("%s:%d" % (name, len(outs)))
print(" ".join(names))
PYEOF
modes=same,scalar,last,row
[ "$san" = 1 ] && [ "$full" != 1 ] && modes=last
if ! "$PY" "$T/make.py" "$T" "$modes" >"$T/make.log" 2>&1; then
    bad "model export: $(tail -c 600 "$T/make.log")"
    finish
fi

for nk in $(tail -n 1 "$T/make.log"); do
    n=${nk%:*} k=${nk#*:}
    mod="$T/$n.onnx"
    ins="$T/$n.a.pb $T/$n.b.pb" pzins="--input $T/$n.a.pb --input $T/$n.b.pb"
    # the outputs' files: ORT's, and one set per run
    outs() { i=0; while [ $i -lt "$k" ]; do printf '%s ' "$T/$n.$1.$i.pb"; i=$((i + 1)); done; }
    # shellcheck disable=SC2046,SC2086
    if ! node "$E2E/ort_run.js" "$mod" $ins -- $(outs ort) >/dev/null 2>"$T/ort.err"; then
        bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
        continue
    fi
    for run in cpu:1 avx2:1 scalar:1 ref:1 ref:3; do
        isa=${run%:*} th=${run#*:}
        pairs=""
        for o in $(outs "$isa$th"); do pairs="$pairs --output $o"; done
        # shellcheck disable=SC2086
        if [ "$isa" = cpu ]; then env -u PZ_ISA "$PZ" run "$mod" $pzins $pairs --threads $th \
                >/dev/null 2>"$T/run.err"
        else PZ_ISA=$isa "$PZ" run "$mod" $pzins $pairs --threads $th >/dev/null 2>"$T/run.err"
        fi || { bad "$n: $isa run failed: $(head -c 400 "$T/run.err")"; continue; }
        clean "$T/run.err" || bad "$n $isa: sanitizer report: $(tail -c 300 "$T/run.err")"
        cmpargs="" i=0
        for o in $(outs "$isa$th"); do cmpargs="$cmpargs $o $T/$n.ort.$i.pb"; i=$((i + 1)); done
        # shellcheck disable=SC2086
        check "$n: $k outputs at ISA $isa, $th threads: the bits of ONNX Runtime" \
            node "$E2E/compare.js" --bitwise $cmpargs
    done
    # one model as a built program (2 threads): the bits of ORT's, as run
    [ "$n" = int32_last ] || continue
    if ! "$PZ" build "$mod" -o "$T/$n.prog" --threads 2 >"$T/build.log" 2>&1; then
        bad "$n: build: $(tail -c 600 "$T/build.log")"
        continue
    fi
    pairs="" cmpargs="" i=0
    for o in $(outs prog); do
        pairs="$pairs --output $o" cmpargs="$cmpargs $o $T/$n.ort.$i.pb" i=$((i + 1))
    done
    # shellcheck disable=SC2086
    if "$T/$n.prog" $pzins $pairs --threads 2 >/dev/null 2>"$T/run.err"; then
        check "$n: the built program's $k outputs: the bits of ONNX Runtime" \
            node "$E2E/compare.js" --bitwise $cmpargs
    else
        bad "$n: the built program failed: $(head -c 400 "$T/run.err")"
    fi
done

# float32 Max, Min, Mod (fmod 1), Pow(|a| + 0.1, b), Pow(a, 3) and Pow(a, 2)
# (binary_avx512.c, binary_avx2.c), one model per broadcast: Max, Min, Mod, Pow 2
# the bits of ORT's, the other Pows within 1e-5 (ours within 1 ulp of powf)
cat >"$T/make_f.py" <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out, modes = sys.argv[1], sys.argv[2].split(",")
rng = np.random.default_rng(1)
A = [2, 3, 37]
B = {"same": A, "scalar": [], "last": [2, 3, 1], "row": [37]}
for mode in modes:
    inits = [nh.from_array(np.array(v, np.float32), k) for k, v in (("k01", 0.1), ("k3", 3.0), ("k2", 2.0))]
    nodes = [h.make_node("Max", ["a", "b"], ["y0"]), h.make_node("Min", ["a", "b"], ["y1"]),
             h.make_node("Mod", ["a", "b"], ["y2"], fmod=1), h.make_node("Pow", ["a", "k2"], ["y3"]),
             h.make_node("Abs", ["a"], ["aa"]), h.make_node("Add", ["aa", "k01"], ["ap"]),
             h.make_node("Pow", ["ap", "b"], ["y4"]), h.make_node("Pow", ["a", "k3"], ["y5"])]
    outs = [h.make_tensor_value_info("y%d" % i, T.FLOAT, None) for i in range(6)]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("a", T.FLOAT, A),
                                  h.make_tensor_value_info("b", T.FLOAT, B[mode])], outs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, "%s/fmath_%s.onnx" % (out, mode))
    a = rng.uniform(-4, 4, A).astype(np.float32)
    a.flat[:4] = [0.5, -0.5, 4.0, -3.0]
    b = np.asarray(rng.uniform(-3, 3, B[mode])).astype(np.float32)
    b = np.where(np.abs(b) < 0.1, np.float32(1.5), b).astype(np.float32)   # no Mod by ~0
    for k, v in (("a", a), ("b", b)):
        with open("%s/fmath_%s.%s.pb" % (out, mode, k), "wb") as f:
            f.write(nh.from_array(np.asarray(v), k).SerializeToString())
PYEOF
if "$PY" "$T/make_f.py" "$T" "$modes" >"$T/make.log" 2>&1; then
    for mode in $(echo "$modes" | tr , ' '); do
        n=fmath_$mode mod="$T/fmath_$mode.onnx"
        ins="$T/$n.a.pb $T/$n.b.pb" pzins="--input $T/$n.a.pb --input $T/$n.b.pb"
        outs() { for i in 0 1 2 3 4 5; do printf '%s ' "$T/$n.$1.$i.pb"; done; }
        # shellcheck disable=SC2046,SC2086
        if ! node "$E2E/ort_run.js" "$mod" $ins -- $(outs ort) >/dev/null 2>"$T/ort.err"; then
            bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
            continue
        fi
        for isa in cpu avx2 scalar ref; do
            pairs=""
            for o in $(outs "$isa"); do pairs="$pairs --output $o"; done
            # shellcheck disable=SC2086
            if [ "$isa" = cpu ]; then env -u PZ_ISA "$PZ" run "$mod" $pzins $pairs >/dev/null 2>"$T/run.err"
            else PZ_ISA=$isa "$PZ" run "$mod" $pzins $pairs >/dev/null 2>"$T/run.err"
            fi || { bad "$n: $isa run failed: $(head -c 400 "$T/run.err")"; continue; }
            clean "$T/run.err" || bad "$n $isa: sanitizer report: $(tail -c 300 "$T/run.err")"
            for i in 0 1 2 3; do
                check "$n: output $i at ISA $isa: the bits of ONNX Runtime" \
                    node "$E2E/compare.js" --bitwise "$T/$n.$isa.$i.pb" "$T/$n.ort.$i.pb"
            done
            for i in 4 5; do
                check "$n: Pow output $i at ISA $isa: ONNX Runtime within 1e-5" \
                    node "$E2E/compare.js" --rel 1e-5 "$T/$n.$isa.$i.pb" "$T/$n.ort.$i.pb"
            done
        done
    done
    # the dispatch at PZ_ISA=avx2: the profile names the AVX2 kernels of the
    # plain Max, Min, Mod, Pow and of the float COMPARE
    if grep -q ' avx2' /proc/cpuinfo 2>/dev/null; then
        n=fmath_last
        PZ_ISA=avx2 "$PZ" run "$T/$n.onnx" --input "$T/$n.a.pb" --input "$T/$n.b.pb" --profile \
            >"$T/prof.txt" 2>&1
        check "$n at avx2: Max, Min, Mod and 3 Pows on binary_avx2.c's plain kernel" \
            test "$(grep -c '^ *[0-9]* BINARY .* avx2$' "$T/prof.txt")" -eq 6
        n=float32_last
        PZ_ISA=avx2 "$PZ" run "$T/$n.onnx" --input "$T/$n.a.pb" --input "$T/$n.b.pb" --profile \
            >"$T/prof.txt" 2>&1
        check "$n at avx2: the 5 COMPARE layers on compare_avx2.c" \
            test "$(grep -c '^ *[0-9]* COMPARE .* avx2$' "$T/prof.txt")" -eq 5
    fi
else
    bad "float model export: $(tail -c 600 "$T/make.log")"
fi
# float32 Max, Min, Mod (fmod 1), PRelu, Pow on NCHW16c maps (fblk: AVX-512
# binary_avx512.c's binary16c, the scalar twin, the reference) and in a
# dynamic region (fdyn: Compress by a run-time condition; the plain AVX-512
# or AVX2 kernel chosen at run; Tanh and Exp by the UNARY's flat vector path): every
# output but the general Pows, Tanh and Exp the bits of ORT's (those within
# 1e-5), at the CPU's ISA (3 threads), avx2, scalar and ref; under a
# sanitizer the CPU's ISA only
cat >"$T/make_b.py" <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.default_rng(3)


def save(name, nodes, ins, n_out, inits, values):
    outs = [h.make_tensor_value_info("y%d" % i, T.FLOAT, None) for i in range(n_out)]
    m = h.make_model(h.make_graph(nodes, "g", ins, outs, inits),
                     opset_imports=[h.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, "%s/%s.onnx" % (out, name))
    for k, v in values:
        with open("%s/%s.%s.pb" % (out, name, k), "wb") as f:
            f.write(nh.from_array(np.asarray(v), k).SerializeToString())


def nonzero(v, r):   # no Mod by ~0
    return np.where(np.abs(v) < 0.1, np.float32(r), v).astype(np.float32)


ks = [nh.from_array(np.array(v, np.float32), k) for k, v in (("k01", 0.1), ("k2", 2.0), ("k05", 0.5), ("k3", 3.0))]
# blocked: two 1x1 convs by the identity (exact: Y = X) make NCHW16c maps of
# 40 channels (a partial block), read by each broadcast of binary16c
C, X = 40, [1, 40, 9, 11]
pc = rng.uniform(-2, 2, [1, C, 1, 1]).astype(np.float32)
inits = ks + [nh.from_array(np.eye(C, dtype=np.float32).reshape(C, C, 1, 1), "w"),
              nh.from_array(pc, "pc"), nh.from_array(np.abs(pc) + np.float32(0.5), "pe"),
              nh.from_array(rng.uniform(-1, 1, [C, 1, 1]).astype(np.float32), "sl")]
nodes = [h.make_node("Conv", ["x", "w"], ["y"]), h.make_node("Conv", ["z", "w"], ["u"]),
         h.make_node("Max", ["y", "pc"], ["y0"]), h.make_node("Min", ["y", "k05"], ["y1"]),
         h.make_node("Mod", ["y", "u"], ["y2"], fmod=1), h.make_node("PRelu", ["y", "sl"], ["y3"]),
         h.make_node("Pow", ["y", "k2"], ["y4"]), h.make_node("Max", ["pc", "y"], ["y5"]),
         h.make_node("Abs", ["y"], ["ya"]), h.make_node("Add", ["ya", "k01"], ["yp"]),
         h.make_node("Pow", ["yp", "pe"], ["y6"])]
save("fblk", nodes, [h.make_tensor_value_info(k, T.FLOAT, X) for k in ("x", "z")], 7, inits,
     (("x", rng.uniform(-4, 4, X).astype(np.float32)),
      ("z", nonzero(rng.uniform(-3, 3, X).astype(np.float32), 1.5))))
# a dynamic region: Compress by a condition given at run time, then each
# broadcast of the plain kernel (same shape, along the last axis, scalar)
A = [2, 3, 37]
nodes = [h.make_node("Compress", ["a", "c"], ["ac"], axis=2),
         h.make_node("Compress", ["b", "c"], ["bs"], axis=2),
         h.make_node("Max", ["ac", "bs"], ["y0"]), h.make_node("Min", ["ac", "bl"], ["y1"]),
         h.make_node("Mod", ["ac", "bl"], ["y2"], fmod=1), h.make_node("PRelu", ["ac", "bl"], ["y3"]),
         h.make_node("Pow", ["ac", "k2"], ["y4"]), h.make_node("Max", ["k05", "ac"], ["y5"]),
         h.make_node("Abs", ["ac"], ["aa"]), h.make_node("Add", ["aa", "k01"], ["ap"]),
         h.make_node("Pow", ["ap", "bs"], ["y6"]), h.make_node("Pow", ["ac", "k3"], ["y7"]),
         h.make_node("Tanh", ["ac"], ["y8"]), h.make_node("Exp", ["ac"], ["y9"])]
ins = [h.make_tensor_value_info("a", T.FLOAT, A), h.make_tensor_value_info("b", T.FLOAT, A),
       h.make_tensor_value_info("bl", T.FLOAT, [2, 3, 1]), h.make_tensor_value_info("c", T.BOOL, [37])]
save("fdyn", nodes, ins, 10, ks,
     (("a", rng.uniform(-4, 4, A).astype(np.float32)),
      ("b", nonzero(rng.uniform(-3, 3, A).astype(np.float32), 1.5)),
      ("bl", nonzero(rng.uniform(-3, 3, [2, 3, 1]).astype(np.float32), -1.5)),
      ("c", rng.uniform(0, 1, [37]) < 0.8)))
print("fblk:x,z:7 fdyn:a,b,bl,c:10")
PYEOF
isas="cpu avx2 scalar ref"   # avx2: binary_avx2.c and its flat UNARY (capped by the CPU)
[ "$san" = 1 ] && [ "$full" != 1 ] && isas=cpu
if "$PY" "$T/make_b.py" "$T" >"$T/make.log" 2>&1; then
    for spec in $(tail -n 1 "$T/make.log"); do
        n=${spec%%:*} rest=${spec#*:} k=${spec##*:}
        ins="" pzins=""
        for i in $(echo "${rest%:*}" | tr , ' '); do
            ins="$ins $T/$n.$i.pb" pzins="$pzins --input $T/$n.$i.pb"
        done
        outs() { i=0; while [ $i -lt "$k" ]; do printf '%s ' "$T/$n.$1.$i.pb"; i=$((i + 1)); done; }
        # shellcheck disable=SC2046,SC2086
        if ! node "$E2E/ort_run.js" "$T/$n.onnx" $ins -- $(outs ort) >/dev/null 2>"$T/ort.err"; then
            bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
            continue
        fi
        for isa in $isas; do
            # a dynamic region's scalar ISA runs the reference
            [ "$n" = fdyn ] && [ "$isa" = scalar ] && continue
            pairs=""
            for o in $(outs "$isa"); do pairs="$pairs --output $o"; done
            # shellcheck disable=SC2086
            if [ "$isa" = cpu ]; then env -u PZ_ISA "$PZ" run "$T/$n.onnx" $pzins $pairs --threads 3 \
                    >/dev/null 2>"$T/run.err"
            else PZ_ISA=$isa "$PZ" run "$T/$n.onnx" $pzins $pairs >/dev/null 2>"$T/run.err"
            fi || { bad "$n: $isa run failed: $(head -c 400 "$T/run.err")"; continue; }
            clean "$T/run.err" || bad "$n $isa: sanitizer report: $(tail -c 300 "$T/run.err")"
            i=0
            while [ $i -lt "$k" ]; do
                if [ $i -ge 6 ]; then   # Pow(|y| + 0.1, e), Pow(y, 3); fdyn's Tanh, Exp
                    check "$n: Pow/Tanh/Exp output $i at ISA $isa: ONNX Runtime within 1e-5" \
                        node "$E2E/compare.js" --rel 1e-5 "$T/$n.$isa.$i.pb" "$T/$n.ort.$i.pb"
                else
                    check "$n: output $i at ISA $isa: the bits of ONNX Runtime" \
                        node "$E2E/compare.js" --bitwise "$T/$n.$isa.$i.pb" "$T/$n.ort.$i.pb"
                fi
                i=$((i + 1))
            done
        done
    done
else
    bad "blocked/dynamic model export: $(tail -c 600 "$T/make.log")"
fi
finish
