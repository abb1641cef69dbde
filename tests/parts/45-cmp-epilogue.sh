#!/bin/sh
# 45-cmp-epilogue.sh BUILD_DIR - a comparison with a constant read as bool
# fused into the Conv, Gemm or MatMul before it (src/passes/select.c's
# pass_fuse_mask; rt/ops/mask_out.h): the layer writes the bool itself,
# the direct, Winograd, depthwise and grouped convs and the packed fp32 and
# bf16 GEMMs from tiles of rows in L2, the other kernels (1-D/3-D,
# reference) from a whole float copy (the profile's kernel column says which).
# Models written here (onnx.helper, opset 14; small integer weights and
# inputs: sums hit the thresholds): Conv -> y > 0.5 as a bool graph output;
# (Conv(x) >= 1) & (Conv1x1(x) < 0) (two fused convs, an And); MatMul ->
# Equal; Gemm (transB, bias) -> Greater; Conv -> Less -> Not -> Where(., z,
# 2) (the Where not fused); LessOrEqual after a depthwise, a grouped and a
# 1-D conv (float copy), a strided 1x1, a 1x1 to 24 channels, a 5x5 of
# batch 2 and a 32 -> 64 3x3 at 40x40 (Winograd on AVX-512); over several
# tiles at 1 thread, Greater/Less after Winograd at 38x38, a depthwise 3x3
# of stride 2, a depthwise 5x5, a grouped conv of 4 x 32 channels;
# thresholds per channel ([1, M, 1, 1], [M, 1, 1] on the left) after a
# direct, a depthwise and a 1-D conv, per column ([N]) after a Gemm and
# (under a Not) a MatMul; a NaN threshold under a Not.
# Each: `paleozoic run` has ONNX Runtime 1.17's bits at the CPU's ISA,
# PZ_ISA=avx2 and scalar at 1 and 2 threads (and ref at 2); the one layer
# (no COMPARE) on the kernel named (", bool tiles" at the CPU's ISA and
# avx2, 1 and 2 threads); `inspect --json` names act select.
# Built programs of three (the bits of `run`), their generated C naming
# the comparison. Fused = unfused bitwise on random floats at each ISA (the
# unfused twin's threshold one value per column: a COMPARE layer), and on
# the tiled kernels (Winograd, depthwise 3x3 incl. MobileNet's 28x28 and
# 14x14 planes, 5x5, grouped) at 1 and 2 threads, a bf16 MatMul and Gemm
# over two tiles (--precision bf16). Not fused, and right: y also a graph output, a
# Relu between, a MatMul in a region of run-time shapes.
# Under a sanitizer build (*san*): the first three models, no programs.
# Ends with `N passed, N failed`.
set -u
NAME=45-cmp-epilogue
. "$(dirname "$0")/lib.sh"
part_init "$@"

"$PY" -c 'import onnx, numpy' 2>/dev/null || skip_part "no onnx/numpy for $PY"
[ "$have_ort" = 1 ] || skip_part "no node or node_modules/onnxruntime-node"

cat >"$T/make.py" <<'PYEOF'
import sys
import numpy as np
from onnx import helper, numpy_helper, TensorProto
out = sys.argv[1]
rng = np.random.default_rng(3)
vi = lambda n, s, t=TensorProto.FLOAT: helper.make_tensor_value_info(n, t, s)
B = TensorProto.BOOL
def save(name, nodes, ins, outs, inits, feeds):
    g = helper.make_graph(nodes, name, ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    open("%s/%s.onnx" % (out, name), "wb").write(m.SerializeToString())
    for k, v in feeds.items():
        open("%s/%s.in.pb" % (out, name), "wb").write(numpy_helper.from_array(v, k).SerializeToString())
c = lambda v, n: numpy_helper.from_array(np.array(v, np.float32), n)
# small integers: sums hit the thresholds exactly
wi = lambda *s: rng.integers(-1, 2, s).astype(np.float32)
xi = lambda *s: rng.integers(-3, 4, s).astype(np.float32)
# conv -> y > 0.5, a bool graph output
save("m_gt", [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1]),
              helper.make_node("Greater", ["y", "t"], ["m"])],
     [vi("x", [1, 8, 9, 11])], [vi("m", [1, 24, 9, 11], B)],
     [numpy_helper.from_array(wi(24, 8, 3, 3), "w"), numpy_helper.from_array(wi(24), "b"), c(0.5, "t")],
     {"x": xi(1, 8, 9, 11)})
# conv -> (y >= c) & (z < d): two convs, an And
save("m_and", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
               helper.make_node("Conv", ["x", "w2"], ["z"]),
               helper.make_node("GreaterOrEqual", ["y", "c"], ["p"]),
               helper.make_node("Less", ["z", "d"], ["q"]),
               helper.make_node("And", ["p", "q"], ["m"])],
     [vi("x", [2, 8, 9, 11])], [vi("m", [2, 20, 9, 11], B)],
     [numpy_helper.from_array(wi(20, 8, 3, 3), "w"), numpy_helper.from_array(wi(20, 8, 1, 1), "w2"),
      c(1.0, "c"), c([[[[0.0]]]], "d")],
     {"x": xi(2, 8, 9, 11)})
# MatMul -> Equal
save("m_eq", [helper.make_node("MatMul", ["x", "w"], ["y"]),
              helper.make_node("Equal", ["y", "k"], ["m"])],
     [vi("x", [2, 7, 16])], [vi("m", [2, 7, 40], B)],
     [numpy_helper.from_array(wi(16, 40), "w"), c(1.0, "k")],
     {"x": xi(2, 7, 16)})
# Conv -> Less -> Not -> Where(., z, 2) (the Where not fused: z a tensor)
save("m_notwhere", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
                    helper.make_node("Conv", ["x", "w2"], ["z"], pads=[1, 1, 1, 1]),
                    helper.make_node("Less", ["y", "t"], ["p"]),
                    helper.make_node("Not", ["p"], ["q"]),
                    helper.make_node("Where", ["q", "z", "k"], ["m"])],
     [vi("x", [1, 8, 9, 11])], [vi("m", [1, 16, 9, 11])],
     [numpy_helper.from_array(wi(16, 8, 3, 3), "w"), numpy_helper.from_array(wi(16, 8, 3, 3), "w2"),
      c(0.0, "t"), c(2.0, "k")],
     {"x": xi(1, 8, 9, 11)})
# the other conv kernels (a float copy): depthwise 3x3, grouped, 1-D; and
# the direct ones' variants: strided 1x1 (subsample), 1x1 to 24 channels
# (conv8x2 on AVX-512), 5x5, batch 2; Gemm with transB and a bias
def conv1(name, xs, ws, m_shape, t=-1.0, **kw):
    save(name, [helper.make_node("Conv", ["x", "w"], ["y"], **kw),
                helper.make_node("LessOrEqual", ["y", "t"], ["m"])],
         [vi("x", list(xs))], [vi("m", list(m_shape), B)],
         [numpy_helper.from_array(wi(*ws), "w"), c(t, "t")], {"x": xi(*xs)})
conv1("m_dw", (1, 32, 10, 12), (32, 1, 3, 3), (1, 32, 10, 12), pads=[1, 1, 1, 1], group=32)
conv1("m_grp", (2, 32, 9, 10), (32, 8, 3, 3), (2, 32, 9, 10), pads=[1, 1, 1, 1], group=4)
conv1("m_1d", (1, 8, 30), (12, 8, 3), (1, 12, 28))
conv1("m_s2", (1, 40, 11, 12), (36, 40, 1, 1), (1, 36, 6, 6), strides=[2, 2])
conv1("m_pw24", (1, 40, 11, 12), (24, 40, 1, 1), (1, 24, 11, 12))
conv1("m_k5b2", (2, 16, 13, 9), (20, 16, 5, 5), (2, 20, 13, 9), pads=[2, 2, 2, 2])
# Winograd's sums are not exact on integers: a threshold between them
conv1("m_big", (1, 32, 40, 40), (64, 32, 3, 3), (1, 64, 40, 40), t=-0.5, pads=[1, 1, 1, 1])
# more than one tile of rows (PZ_MASK_TILE_BYTES) at 1 thread: Winograd at
# 38x38 (a last tile row of 2), a depthwise 3x3 of stride 2, a depthwise
# 5x5, a grouped conv of 32 channels a group (two-row tiles on AVX-512)
def conv2(name, op, xs, ws, m_shape, t, **kw):
    save(name, [helper.make_node("Conv", ["x", "w"], ["y"], **kw),
                helper.make_node(op, ["y", "t"], ["m"])],
         [vi("x", list(xs))], [vi("m", list(m_shape), B)],
         [numpy_helper.from_array(wi(*ws), "w"), c(t, "t")], {"x": xi(*xs)})
conv2("m_wino", "Greater", (1, 32, 38, 38), (64, 32, 3, 3), (1, 64, 38, 38), 0.5, pads=[1, 1, 1, 1])
conv2("m_dw3", "Less", (1, 64, 45, 112), (64, 1, 3, 3), (1, 64, 23, 56), -0.5, pads=[1, 1, 1, 1],
      strides=[2, 2], group=64)
conv2("m_dwk", "Greater", (1, 48, 30, 60), (48, 1, 5, 5), (1, 48, 30, 60), 0.5, pads=[2, 2, 2, 2],
      group=48)
conv2("m_grp2", "Less", (2, 128, 30, 10), (128, 32, 3, 3), (2, 128, 30, 10), -0.5, pads=[1, 1, 1, 1],
      group=4)
save("m_gemm", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1),
                helper.make_node("Greater", ["y", "t"], ["m"])],
     [vi("x", [5, 48])], [vi("m", [5, 40], B)],
     [numpy_helper.from_array(wi(40, 48), "w"), numpy_helper.from_array(wi(40), "b"), c(1.0, "t")],
     {"x": xi(5, 48)})
# thresholds per channel: [1, M, 1, 1] and [M, 1, 1] (y on the right) after
# a direct conv, a depthwise (float copy, NCHW16c) and a 1-D conv (float
# copy, plain); [N] after a Gemm, Not(LessOrEqual(y, [N])) after a MatMul;
# a NaN threshold under a Not (every byte 1)
def cmp1(name, op, xs, ws, m_shape, t, rev=False, nan_not=False, **kw):
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], **kw),
             helper.make_node(op, ["t", "y"] if rev else ["y", "t"], ["p" if nan_not else "m"])]
    if nan_not:
        nodes.append(helper.make_node("Not", ["p"], ["m"]))
    save(name, nodes, [vi("x", list(xs))], [vi("m", list(m_shape), B)],
         [numpy_helper.from_array(wi(*ws), "w"), numpy_helper.from_array(np.asarray(t, np.float32), "t")],
         {"x": xi(*xs)})
tch = lambda m, *s: rng.integers(-2, 3, m).astype(np.float32).reshape(*s)
cmp1("c_chan", "Less", (1, 8, 9, 11), (20, 8, 3, 3), (1, 20, 9, 11), tch(20, 1, 20, 1, 1), pads=[1, 1, 1, 1])
cmp1("c_chan_rev", "Greater", (2, 8, 7, 6), (36, 8, 1, 1), (2, 36, 7, 6), tch(36, 36, 1, 1), rev=True)
cmp1("c_dw_chan", "GreaterOrEqual", (1, 24, 10, 12), (24, 1, 3, 3), (1, 24, 10, 12), tch(24, 1, 24, 1, 1),
     pads=[1, 1, 1, 1], group=24)
cmp1("c_1d_chan", "Equal", (2, 8, 30), (12, 8, 3), (2, 12, 28), tch(12, 12, 1))
cmp1("c_nan", "Greater", (1, 8, 9, 11), (16, 8, 3, 3), (1, 16, 9, 11), np.float32("nan"), nan_not=True,
     pads=[1, 1, 1, 1])
save("g_col", [helper.make_node("Gemm", ["x", "w", "b"], ["y"]),
               helper.make_node("GreaterOrEqual", ["y", "t"], ["m"])],
     [vi("x", [6, 32])], [vi("m", [6, 24], B)],
     [numpy_helper.from_array(wi(32, 24), "w"), numpy_helper.from_array(wi(24), "b"),
      numpy_helper.from_array(tch(24, 24), "t")], {"x": xi(6, 32)})
save("mm_not", [helper.make_node("MatMul", ["x", "w"], ["y"]),
                helper.make_node("LessOrEqual", ["y", "t"], ["p"]),
                helper.make_node("Not", ["p"], ["m"])],
     [vi("x", [2, 5, 16])], [vi("m", [2, 5, 40], B)],
     [numpy_helper.from_array(wi(16, 40), "w"), numpy_helper.from_array(tch(40, 1, 40), "t")],
     {"x": xi(2, 5, 16)})
# fused = unfused on random floats: the unfused twin's threshold one value
# per column (W), which no pass fuses
rng = np.random.default_rng(5)
w = (rng.standard_normal((24, 8, 3, 3)) * 0.3).astype(np.float32)
x = rng.standard_normal((1, 8, 9, 11)).astype(np.float32)
for name, t in (("bits_fused", np.float32(0.05)), ("bits_unfused", np.full((1, 1, 1, 11), 0.05, np.float32))):
    save(name, [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
                helper.make_node("Greater", ["y", "t"], ["m"])],
         [vi("x", [1, 8, 9, 11])], [vi("m", [1, 24, 9, 11], B)],
         [numpy_helper.from_array(w, "w"), numpy_helper.from_array(t, "t")], {"x": x})
# the same on the tiled kernels (random floats, several tiles at 1 thread)
def bits_conv(name, op, xs, ws, **kw):
    wc = (rng.standard_normal(ws) * 0.3).astype(np.float32)
    xc = rng.standard_normal(xs).astype(np.float32)
    pads, st = kw.get("pads", [0] * 4), kw.get("strides", [1, 1])
    oh, ow = ((xs[2 + j] + pads[j] + pads[j + 2] - ws[2 + j]) // st[j] + 1 for j in (0, 1))
    for suf, t in (("_fused", np.float32(0.05)), ("_unfused", np.full((1, 1, 1, ow), 0.05, np.float32))):
        save(name + suf, [helper.make_node("Conv", ["x", "w"], ["y"], **kw),
                          helper.make_node(op, ["y", "t"], ["m"])],
             [vi("x", list(xs))], [vi("m", [xs[0], ws[0], oh, ow], B)],
             [numpy_helper.from_array(wc, "w"), numpy_helper.from_array(t, "t")], {"x": xc})
bits_conv("bwino", "Greater", (1, 32, 38, 38), (64, 32, 3, 3), pads=[1, 1, 1, 1])
bits_conv("bdw", "Less", (1, 64, 45, 112), (64, 1, 3, 3), pads=[1, 1, 1, 1], strides=[2, 2], group=64)
# MobileNetV2's depthwise planes (28x28 in row pairs, 14x14 whole): the
# kernel's own functions in a whole-layer run, the row tiles in a window
bits_conv("bdw28", "Greater", (1, 64, 28, 28), (64, 1, 3, 3), pads=[1, 1, 1, 1], group=64)
bits_conv("bdw14", "Less", (1, 64, 14, 14), (64, 1, 3, 3), pads=[1, 1, 1, 1], group=64)
bits_conv("bdwk", "Greater", (1, 48, 30, 60), (48, 1, 5, 5), pads=[2, 2, 2, 2], group=48)
bits_conv("bgrp", "Less", (2, 128, 30, 10), (128, 32, 3, 3), pads=[1, 1, 1, 1], group=4)
# a MatMul and a Gemm (transB, bias) in bf16 (--precision bf16) over two
# tiles of rows; the unfused twin's threshold one per row
wm = (rng.standard_normal((64, 128)) * 0.3).astype(np.float32)
xm = rng.standard_normal((1, 600, 64)).astype(np.float32)
for suf, t in (("_fused", np.float32(0.05)), ("_unfused", np.full((600, 1), 0.05, np.float32))):
    save("bmm16" + suf, [helper.make_node("MatMul", ["x", "w"], ["y"]),
                         helper.make_node("Greater", ["y", "t"], ["m"])],
         [vi("x", [1, 600, 64])], [vi("m", [1, 600, 128], B)],
         [numpy_helper.from_array(wm, "w"), numpy_helper.from_array(t, "t")], {"x": xm})
    save("bgm16" + suf, [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1),
                         helper.make_node("Less", ["y", "t"], ["m"])],
         [vi("x", [600, 64])], [vi("m", [600, 128], B)],
         [numpy_helper.from_array(wm.T.copy(), "w"), numpy_helper.from_array(wm[0], "b"),
          numpy_helper.from_array(t, "t")], {"x": xm[0]})
# not fused: y also a graph output; a Relu between
save("n_out", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
               helper.make_node("Greater", ["y", "t"], ["m"])],
     [vi("x", [1, 8, 9, 11])], [vi("m", [1, 24, 9, 11], B), vi("y", [1, 24, 9, 11])],
     [numpy_helper.from_array(w, "w"), c(0.05, "t")], {"x": x})
save("n_relu", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
                helper.make_node("Relu", ["y"], ["r"]),
                helper.make_node("Greater", ["r", "t"], ["m"])],
     [vi("x", [1, 8, 9, 11])], [vi("m", [1, 24, 9, 11], B)],
     [numpy_helper.from_array(w, "w"), c(0.05, "t")], {"x": x})
# not fused: a MatMul in a region of run-time shapes (the rows a NonZero keeps)
x6 = rng.standard_normal((6, 8)).astype(np.float32)
save("n_dyn", [helper.make_node("Gather", ["x", "zero"], ["col0"], axis=1),
               helper.make_node("Greater", ["col0", "t"], ["keep"]),
               helper.make_node("NonZero", ["keep"], ["nz"]),
               helper.make_node("Squeeze", ["nz", "ax0"], ["idx"]),
               helper.make_node("Gather", ["x", "idx"], ["rows"], axis=0),
               helper.make_node("MatMul", ["rows", "b"], ["mm"]),
               helper.make_node("Greater", ["mm", "t"], ["m"])],
     [vi("x", [6, 8])], [vi("m", ["K", 5], B)],
     [numpy_helper.from_array(np.array(0, np.int64), "zero"),
      numpy_helper.from_array(np.array([0], np.int64), "ax0"),
      numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "b"), c(0.05, "t")],
     {"x": x6})
PYEOF
"$PY" "$T/make.py" "$T" >"$T/make.log" 2>&1 || { bad "onnx models: $(tail -c 600 "$T/make.log")"; finish; }

# name  the layers (sorted, + between)  the fused layer's kernel column (tiles | copy | -: none)
CASES="m_gt CONV tiles
m_and COMPARE+CONV+CONV tiles
m_eq MATMUL tiles
m_gemm GEMM tiles
m_notwhere CONV+CONV+WHERE tiles
m_dw CONV tiles
m_grp CONV tiles
m_1d CONV copy
m_s2 CONV tiles
m_pw24 CONV tiles
m_k5b2 CONV tiles
m_big CONV tiles
m_wino CONV tiles
m_dw3 CONV tiles
m_dwk CONV tiles
m_grp2 CONV tiles
c_chan CONV tiles
c_chan_rev CONV tiles
c_dw_chan CONV tiles
c_1d_chan CONV copy
c_nan CONV tiles
g_col GEMM tiles
mm_not MATMUL tiles
n_out COMPARE+CONV -
n_relu COMPARE+CONV -"
printf '%s\n' "$CASES" >"$T/cases"
i=0
while read -r n kind way; do
    i=$((i + 1))
    [ "$san" -eq 1 ] && [ "$i" -gt 3 ] && break
    mod="$T/$n.onnx" in="$T/$n.in.pb"
    if ! node "$E2E/ort_run.js" "$mod" "$in" -- "$T/$n.ort.pb" >/dev/null 2>"$T/ort.err"; then
        bad "$n: ONNX Runtime failed: $(head -c 300 "$T/ort.err")"
        continue
    fi
    for run in native:1 native:2 avx2:1 avx2:2 scalar:1 scalar:2 ref:2; do
        isa=${run%:*} th=${run#*:}
        e=PZ_ISA=$isa
        [ "$isa" = native ] && e=PZ_SEL_NATIVE=1   # the CPU's ISA
        if env "$e" "$PZ" run "$mod" --input "$in" --output "$T/$n.o.pb" --threads "$th" \
            --profile >"$T/$n.prof" 2>"$T/run.err"; then
            check "$n: run PZ_ISA=$isa, $th threads: the bits of ONNX Runtime" cmp_bit "$T/$n.o.pb" "$T/$n.ort.pb"
        else
            bad "$n: PZ_ISA=$isa paleozoic run failed: $(head -c 400 "$T/run.err")"
            continue
        fi
        # tiles at the CPU's ISA and AVX2, 1 and 2 threads (Winograd on AVX-512)
        case $way:$isa in tiles:native | tiles:avx2)
            check "$n: PZ_ISA=$isa, $th threads: the bool from tiles" grep -q ", bool tiles" "$T/$n.prof" ;;
        esac
        [ "$n:$isa" = m_wino:native ] && grep -q avx512f /proc/cpuinfo &&
            check "$n: Winograd writes the bool from tiles" grep -q "winograd, bool tiles" "$T/$n.prof"
        [ "$isa" = native ] && [ "$th" = 1 ] || continue
        kinds=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z_]+$/ {print $2}' "$T/$n.prof" | sort | tr '\n' ' ')
        want="$(echo "$kind" | tr + ' ') "
        if [ "$kinds" = "$want" ]; then ok
        else bad "$n: layers '$kinds', wanted '$want'"; fi
        case $way in
        tiles) ;;   # above
        copy) check "$n: the kernel writes the bool from a float copy" grep -q ", bool from a float copy" "$T/$n.prof" ;;
        any) check "$n: the kernel writes the bool" grep -q ", bool " "$T/$n.prof" ;;
        -) check "$n: no kernel writes a bool" sh -c "! grep -q ', bool ' \"$T/$n.prof\"" ;;
        esac
    done
    [ "$way" = - ] && continue
    check "$n: inspect --json names act select" sh -c \
        "\"$PZ\" inspect \"$mod\" --strategy none --json | grep -q '\"act\":\"select\"'"
    [ "$san" -eq 1 ] && continue
    case $n in m_gt | m_and | m_eq) ;; *) continue ;; esac
    built_bits "$n" "$mod" "$in" || continue
    rm -rf "$T/$n.c"
    cmp=PZ_CMP_GT
    [ "$n" = m_and ] && cmp=PZ_CMP_GE
    [ "$n" = m_eq ] && cmp=PZ_ACT_SELECT   # EQ, the first comparison, is not printed
    if "$PZ" compile "$mod" -o "$T/$n.c" >"$T/compile.log" 2>&1 && grep -rqF "$cmp" "$T/$n.c"; then ok
    else bad "$n: the generated C does not name $cmp: $(tail -c 300 "$T/compile.log")"; fi
done <"$T/cases"

# a MatMul in a region of run-time shapes keeps its COMPARE (a fused one was refused)
n=n_dyn
if node "$E2E/ort_run.js" "$T/$n.onnx" "$T/$n.in.pb" -- "$T/$n.ort.pb" >/dev/null 2>"$T/ort.err" &&
    "$PZ" run "$T/$n.onnx" --input "$T/$n.in.pb" --output "$T/$n.o.pb" >/dev/null 2>"$T/run.err"; then
    check "$n: a run-time-shaped MatMul -> Greater: the bits of ONNX Runtime" \
        cmp_bit "$T/$n.o.pb" "$T/$n.ort.pb"
else
    bad "$n: run failed: $(head -c 300 "$T/ort.err" "$T/run.err")"
fi

# fused (1 layer) = unfused (CONV, COMPARE) bit for bit on random floats
isas="native avx2 scalar"
[ "$san" -eq 1 ] && isas=scalar
fused_bits bits 2 "$isas"
# the tiled kernels: Winograd (AVX-512), depthwise 3x3 and 5x5, grouped, at
# 1 and 2 threads; the bf16 GEMM
if [ "$san" -eq 0 ]; then
    for b in bwino bdw bdw28 bdw14 bdwk bgrp; do
        isas="native avx2"
        case $b in bdw28 | bdw14) isas=native ;; esac   # AVX-512's plane functions
        fused_bits "$b" 2 "$isas" "--threads 1" ", bool tiles"
        fused_bits "$b" 2 "$isas" "--threads 2" ", bool tiles"
    done
    fused_bits bmm16 2 "native avx2" "--threads 2 --precision bf16" "bf16, bool tiles"
    fused_bits bgm16 2 "native avx2" "--threads 2 --precision bf16" "bf16, bool tiles"
fi
finish
