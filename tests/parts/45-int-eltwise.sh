#!/bin/sh
# 45-int-eltwise.sh BUILD_DIR - the integer BINARY and the COMPARE fast
# kernels (rt/kernels/eltwise/int_binary_*.c, compare_*.c: fast.h) in
# whole models written here (onnx.helper, opset 13), against ONNX Runtime
# 1.17: A [2, 3, 37] and B of the same shape, a scalar, [2, 3, 1] (along
# the last axis) or [37] (a row), int32 and int64 (B nonzero, -1 among its
# values, signs mixed): Add, Sub, Mul, Div, Max, Min, Mod (fmod 0 and 1),
# Equal, Less, LessOrEqual, Greater, GreaterOrEqual and Where(Less, A, B);
# float32 A and B (ties): the comparisons and Where. Each model runs at
# the CPU's ISA (AVX-512 where it has it), PZ_ISA=scalar (the plain C
# twins) and PZ_ISA=ref (the references), the ref one at 1 and 3 threads:
# every output has the bits of ONNX Runtime's; int32 along the last axis
# also as a built program. Under a sanitizer: the models of one shape
# (along the last axis). Ends with `N passed, N failed`.
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
    for run in cpu:1 scalar:1 ref:1 ref:3; do
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
finish
