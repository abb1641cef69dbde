#!/bin/sh
# 45-inspect-kernels.sh BUILD_DIR MODELDIR - `inspect --strategy/--schedule`
# names the kernel each layer takes (issue 39: see every optimization), the
# one `run` prepares with the same knobs, as `run --profile` names it.
#
#   same     for each case, the kernels table of `inspect` (text) and its
#            --json "runtime"."kernels" list the layers `run --profile`
#            lists, each with its op, name, MP and kernel equal to the
#            profile's: ResNet-18 (Winograd, direct), MobileNetV2 (depthwise),
#            a 1x1 conv -> Greater and a 1-D conv -> LessOrEqual read as bool
#            (", bool tiles", ", bool from a float copy"), ResNet-18 at
#            PZ_ISA=avx2, at --precision bf16 (where the CPU has AVX512_BF16)
#            and on a schedule of fused blocks, MobileNetV2 at 1 thread; a
#            region of run-time shapes (NonZero -> Gather -> MatMul)
#   known    ResNet-18's layer1.0 conv1 (3x3, stride 1, 64 channels, 56x56)
#            names a kernel, the profile's; the bool model names ", bool
#            tiles" and ", bool from a float copy", MobileNetV2 "depthwise",
#            the bf16 run "bf16"; the layers after the NonZero say "run time"
#            (shapes of the run), the ones before "planned"
# Under a sanitizer build (*san*): the small models and ResNet-18 once.
# Ends with `N passed, N failed`.
set -u
NAME=45-inspect-kernels
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_py" = 1 ] || skip_part "python3 with onnx and numpy (tools/setup.sh)"

"$PY" - "$T" >"$T/make.log" 2>&1 <<'PYEOF' || { bad "onnx models: $(tail -c 600 "$T/make.log")"; finish; }
import sys
import numpy as np
from onnx import helper, numpy_helper, TensorProto
out = sys.argv[1]
rng = np.random.default_rng(5)
vi = lambda n, s, t=TensorProto.FLOAT: helper.make_tensor_value_info(n, t, s)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
c = lambda v, n: numpy_helper.from_array(np.array(v, np.float32), n)
def save(name, nodes, ins, outs, inits, feeds):
    m = helper.make_model(helper.make_graph(nodes, name, ins, outs, inits),
                          opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    open("%s/%s.onnx" % (out, name), "wb").write(m.SerializeToString())
    open("%s/%s.in.pb" % (out, name), "wb").write(numpy_helper.from_array(feeds, "x").SerializeToString())
# comparisons read as bool: after a 1x1 conv (tiles) and after a 1-D conv
# (conv frames: a float copy)
save("cmp", [helper.make_node("Conv", ["x", "w"], ["y"]),
             helper.make_node("Greater", ["y", "t"], ["m"]),
             helper.make_node("Reshape", ["x", "s1"], ["x1"]),
             helper.make_node("Conv", ["x1", "wd"], ["z"], pads=[1, 1]),
             helper.make_node("LessOrEqual", ["z", "t"], ["k"])],
     [vi("x", [1, 16, 20, 20])],
     [vi("m", [1, 32, 20, 20], TensorProto.BOOL), vi("k", [1, 16, 400], TensorProto.BOOL)],
     [numpy_helper.from_array(f32(32, 16, 1, 1), "w"), numpy_helper.from_array(f32(16, 16, 3), "wd"),
      numpy_helper.from_array(np.array([1, 16, 400], np.int64), "s1"),
      c(0.1, "t")], f32(1, 16, 20, 20))
# a region of run-time shapes: the rows a NonZero keeps, then a MatMul
save("dyn", [helper.make_node("Gather", ["x", "zero"], ["col0"], axis=1),
             helper.make_node("Greater", ["col0", "t"], ["keep"]),
             helper.make_node("NonZero", ["keep"], ["nz"]),
             helper.make_node("Squeeze", ["nz", "ax0"], ["idx"]),
             helper.make_node("Gather", ["x", "idx"], ["rows"], axis=0),
             helper.make_node("MatMul", ["rows", "b"], ["y"])],
     [vi("x", [6, 8])], [vi("y", ["K", 5])],
     [numpy_helper.from_array(np.array(0, np.int64), "zero"),
      numpy_helper.from_array(np.array([0], np.int64), "ax0"),
      numpy_helper.from_array(f32(8, 5), "b"), c(0.0, "t")], f32(6, 8))
PYEOF

# same.py INSPECT_TEXT INSPECT_JSON PROFILE [want=SUBSTR]... [node=NAME]
# [dyn=NAME,...] [planned=NAME,...]: the three list the same layers with the
# same op, name, MP and kernel; some kernel contains each SUBSTR; node NAME
# names a kernel (not "-"); the dyn layers say run time, the planned ones not.
cat >"$T/same.py" <<'EOF'
import json, re, sys
text, js, prof = (open(p).read().splitlines() for p in sys.argv[1:4])
ROW = re.compile(r"^ *(\d+) +(\S+) +(\S+) +(\d+) +(\d+) +(.*)$")
def rows(lines, start, pick):
    got, on = {}, False
    for ln in lines:
        if ln.startswith(start): on = True; continue
        if not on: continue
        r = ROW.match(ln)
        if not r: break
        got[int(r.group(1))] = pick(r)
    return got
# profile: layer op name block mp ms % kernel; inspect: layer op name block mp shapes kernel
p = rows(prof, "layer op ", lambda r: (r.group(2), r.group(3), int(r.group(5)),
                                         r.group(6).split(None, 2)[2]))
shapes = {}
def ins(r):
    s, k = re.match(r"(planned|run time) +(.*)$", r.group(6)).groups()
    shapes[int(r.group(1))] = s
    return (r.group(2), r.group(3), int(r.group(5)), k)
t = rows(text, "layer op ", ins)
d = json.loads("\n".join(js))["runtime"]["kernels"]
j = {e["layer"]: (e["op"], e["name"], e["mp"], e["kernel"]) for e in d}
err = []
if not p: err.append("the profile lists no layer")
for name, got in (("inspect", t), ("inspect --json", j)):
    if got != p:
        diff = sorted(set(got.items()) ^ set(p.items()))[:6]
        err.append("%s != profile: %s" % (name, diff))
if any(shapes[e["layer"]] != ("run time" if e["run_time_shapes"] else "planned") for e in d if e["layer"] in shapes):
    err.append("text and json disagree on the shapes column")
kernels = [v[3] for v in j.values()]
by_name = {e["name"]: e for e in d}
for a in sys.argv[4:]:
    k, v = a.split("=", 1)
    if k == "want" and not any(v in x for x in kernels): err.append("no kernel has %r: %s" % (v, sorted(set(kernels))))
    if k == "node" and (v not in by_name or by_name[v]["kernel"] == "-"): err.append("%s: no kernel named: %s" % (v, by_name.get(v)))
    for n in v.split(",") if k in ("dyn", "planned") else []:
        if n not in by_name or by_name[n]["run_time_shapes"] != (k == "dyn"): err.append("%s: not %s: %s" % (n, k, by_name.get(n)))
if err: sys.exit("; ".join(err))
print("%d layers, kernels %s" % (len(p), sorted(set(kernels))))
EOF

# same LABEL MODEL INPUT 'ENV' 'KNOBS' [same.py checks]: inspect (text, --json)
# and run --profile with ENV and KNOBS
same() {
    label=$1 model=$2 in=$3 e=$4 knobs=$5; shift 5
    # shellcheck disable=SC2086 # KNOBS are words
    if env PZ_SEL_NATIVE=1 $e "$PZ" inspect "$model" $knobs >"$T/ins.txt" 2>"$T/err" &&
        env PZ_SEL_NATIVE=1 $e "$PZ" inspect "$model" $knobs --json >"$T/ins.json" 2>>"$T/err" &&
        env PZ_SEL_NATIVE=1 $e "$PZ" run "$model" --input "$in" $knobs --profile >"$T/prof" 2>>"$T/err" &&
        clean "$T/err"; then
        check "$label: inspect's kernels are run --profile's" "$PY" "$T/same.py" "$T/ins.txt" "$T/ins.json" "$T/prof" "$@"
    else
        bad "$label: inspect or run failed: $(tail -c 400 "$T/err")"
    fi
}

R18=$M/resnet18.onnx
same "resnet18" "$R18" "$M/resnet18.input.pb" "" "--strategy none --threads 2" \
    want=winograd want=direct node=/layer1/layer1.0/conv1/Conv planned=/conv1/Conv,/fc/Gemm
same "bool after convs" "$T/cmp.onnx" "$T/cmp.in.pb" "" "--strategy none --threads 2" \
    "want=, bool tiles" "want=, bool from a float copy"
same "run-time shapes" "$T/dyn.onnx" "$T/dyn.in.pb" "" "--strategy none --threads 2" \
    dyn=Squeeze_3,Gather_4,MatMul_5 planned=Gather_0,Greater_1,NonZero_2
if [ "$san" = 0 ]; then
    same "mobilenet_v2 1 thread" "$M/mobilenet_v2.onnx" "$M/mobilenet_v2.input.pb" "" \
        "--strategy none --threads 1" want=depthwise
    same "resnet18 PZ_ISA=avx2" "$R18" "$M/resnet18.input.pb" "PZ_ISA=avx2" \
        "--strategy none --threads 2" node=/layer1/layer1.0/conv1/Conv
    same "bool after convs PZ_ISA=avx2" "$T/cmp.onnx" "$T/cmp.in.pb" "PZ_ISA=avx2" \
        "--strategy none --threads 1" "want=, bool"
    # fused F-Blocks: the default strategy on all the cores (MP all)
    same "mobilenet_v2 fuse-all" "$M/mobilenet_v2.onnx" "$M/mobilenet_v2.input.pb" "" \
        "--strategy fuse-all --threads 2" want=depthwise
    if grep -q avx512_bf16 /proc/cpuinfo; then
        same "resnet18 --precision bf16" "$R18" "$M/resnet18.input.pb" "" \
            "--strategy none --threads 2 --precision bf16" want=bf16
    else
        skip_one "resnet18 --precision bf16: this CPU has no AVX512_BF16"
    fi
fi
finish
