#!/bin/sh
# 45-strategies.sh BUILD_DIR - Algorithm 1 that follows the profile, and an
# oracle that bounds (issue 45, items 2 and 3), deterministic: the profiles
# are written here (doctored), nothing depends on a timing.
#
#   lose.json   fusing lost for both chain kinds (gains 0.6-0.9), an
#               OpCount_critical no block reaches: on the zoo's MobileNetV2,
#               dlfusion:paper builds fused blocks, dlfusion builds none;
#               its depthwise layers take the MP their measured neighbours
#               ran fastest (7x7 maps: MP 1, measured 3x faster; 56x56: MP 2)
#               where the model says MP 2 for every layer
#   gain.json   inverted residuals gain 1.5, 3x3 convs 0.8: dlfusion fuses
#               the depthwise layers with their 1x1 convs and leaves the
#               first (dense 3x3) conv and the FC layer alone
#   runs        both schedules run bitwise equal to `--strategy none`
#   bench       `--strategies all` on a small model lists dlfusion:paper and
#               reports, for each strategy beside oracle, its paired ratio to
#               oracle and the beats_oracle flag (false for oracle itself);
#               the oracle, run last, is seeded with the others' schedules
#   errors      dlfusion:OTHER refused (exit 2), the known names list
#               dlfusion:paper
# Under a sanitizer build (*san*) the same checks run (the model is written
# here; the bench model is 4 small convs). Ends with `N passed, N failed`.
set -u
NAME=45-strategies
. "$(dirname "$0")/lib.sh"
part_init "$@"
export XDG_CACHE_HOME="$T/cache"   # no default profile of the user's is read

if ! "$PZ" zoo mobilenet_v2 -o "$T/mv2.onnx" >"$T/log" 2>&1; then
    bad "zoo mobilenet_v2: $(tail -c 300 "$T/log")"
    finish
fi

# the profiles: pz_machine's numbers (MP model: MP 2 for every layer), the
# measured layers at MP 1 and 2, and the fused chains' gains
"$PY" - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
def profile(ir_gain, conv_gain):
    fusion = []
    for chain, gain, c, hw, layers in (("inverted_residual", ir_gain, 24, 56, 15), ("conv", conv_gain, 32, 28, 16)):
        for block in (1, 3, 6):
            fusion.append({"chain": chain, "c": c, "hw": hw, "kernel": 3, "layers": layers,
                           "layer_ops": 1e7, "block": block, "mp": 2, "ms": 1.0,
                           "speedup": None, "gain": 1 if block == 1 else gain - 0.05 * (block == 3)})
    return {"paleozoic_target": 1, "level": "default", "cores": 2,
            "opcount_critical": 1e12, "mp_alpha": 0, "mp_beta": 0, "mp_gamma": 1, "peak_gflops": 100,
            "mp_list": [1, 2],
            "layers": [
                {"kind": "conv", "c_in": 64, "c_out": 64, "hw": 28, "kernel": 3, "ops": 5.8e7, "ms": [0.3, 0.2]},
                {"kind": "conv", "c_in": 128, "c_out": 128, "hw": 28, "kernel": 1, "ops": 2.6e7, "ms": [0.2, 0.1]},
                {"kind": "depthwise", "c_in": 144, "c_out": 144, "hw": 56, "kernel": 3, "ops": 8.1e6, "ms": [0.12, 0.06]},
                {"kind": "depthwise", "c_in": 960, "c_out": 960, "hw": 7, "kernel": 3, "ops": 8.5e5, "ms": [0.01, 0.03]},
                {"kind": "fc", "m": 1, "k": 1024, "n": 1024, "ops": 2.1e6, "ms": [0.14, 0.04]}],
            "fusion": fusion}
json.dump(profile(0.9, 0.7), open(t + "/lose.json", "w"))
json.dump(profile(1.5, 0.8), open(t + "/gain.json", "w"))
EOF

# blocks FILE: "count@mp first_node" per block of a tuned schedule
blocks() { "$PY" -c 'import json,sys
for b in json.load(open(sys.argv[1]))["blocks"]: print("%d@%d %s" % (b["count"], b["mp"], b["first_node"]))' "$1"; }

check "tune dlfusion:paper (lose.json)" "$PZ" tune "$T/mv2.onnx" --threads 2 --strategy dlfusion:paper \
    --target "$T/lose.json" -o "$T/paper.json"
check "tune dlfusion (lose.json)" "$PZ" tune "$T/mv2.onnx" --threads 2 --strategy dlfusion \
    --target "$T/lose.json" -o "$T/lose_s.json"
blocks "$T/paper.json" >"$T/paper.txt" 2>&1
blocks "$T/lose_s.json" >"$T/lose.txt" 2>&1
if grep -q -v '^1@' "$T/paper.txt"; then ok "dlfusion:paper fuses where the profile says fusing loses"
else bad "dlfusion:paper built no fused block: $(head -c 300 "$T/paper.txt")"; fi
n=$(wc -l <"$T/lose.txt")
if [ "$n" -gt 50 ] && ! grep -q -v '^1@' "$T/lose.txt"; then ok "dlfusion: no fused block where fusing lost ($n blocks)"
else bad "dlfusion fused where the profile says fusing loses: $(grep -v '^1@' "$T/lose.txt" | head -3 | tr '\n' ' ')"; fi
check "dlfusion differs from dlfusion:paper" sh -c "! cmp -s '$T/paper.txt' '$T/lose.txt'"
# MobileNetV2's depthwise layers: features.N.conv.1.0 (N >= 2), features.1.conv.0.0
if grep -q '^1@1 features.16.conv.1.0$' "$T/lose.txt" && grep -q '^1@1 features.17.conv.1.0$' "$T/lose.txt"; then
    ok "dlfusion: 7x7 depthwise layers on the MP measured fastest (1)"
else bad "dlfusion: 7x7 depthwise layers not on MP 1: $(grep 'conv.1.0' "$T/lose.txt" | tail -3 | tr '\n' ' ')"; fi
if grep -q '^1@2 features.3.conv.1.0$' "$T/lose.txt" && grep -q '^1@2 features.3.conv.0.0$' "$T/lose.txt"; then
    ok "dlfusion: 56x56 depthwise and 1x1 layers on MP 2"
else bad "dlfusion: features.3 not on MP 2: $(grep 'features.3\.' "$T/lose.txt" | tr '\n' ' ')"; fi
if ! grep -q '@1 ' "$T/paper.txt"; then ok "dlfusion:paper keeps the model's MP 2 (no per-kind check)"
else bad "dlfusion:paper: $(head -c 300 "$T/paper.txt")"; fi

check "tune dlfusion (gain.json)" "$PZ" tune "$T/mv2.onnx" --threads 2 --strategy dlfusion \
    --target "$T/gain.json" -o "$T/gain_s.json"
blocks "$T/gain_s.json" >"$T/gain.txt" 2>&1
if grep -q -E "^([2-9]|[1-9][0-9]+)@[12] features.1.conv.0.0\$" "$T/gain.txt" && grep -q '^1@[12] features.0.0$' "$T/gain.txt" &&
    grep -q '^1@[12] classifier.1$' "$T/gain.txt"; then
    ok "dlfusion: inverted residuals fused where they gain, the 3x3 conv and FC alone"
else bad "dlfusion (gain.json): $(head -5 "$T/gain.txt" | tr '\n' ' ') ... $(tail -2 "$T/gain.txt" | tr '\n' ' ')"; fi

# the schedules run, bitwise equal to none (the kernels give the same bits at any MP)
"$PY" -c 'import numpy as np, onnx, sys
from onnx import numpy_helper
x = np.random.RandomState(3).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
open(sys.argv[1], "wb").write(numpy_helper.from_array(x, "input").SerializeToString())' "$T/x.pb" 2>"$T/log" ||
    bad "input: $(tail -c 300 "$T/log")"
check "run none" "$PZ" run "$T/mv2.onnx" --input "$T/x.pb" --output "$T/none.pb" --threads 2 --strategy none
for s in dlfusion dlfusion:paper; do
    rm -f "$T/s.pb"
    if "$PZ" run "$T/mv2.onnx" --input "$T/x.pb" --output "$T/s.pb" --threads 2 --strategy "$s" \
        --target "$T/lose.json" >"$T/log" 2>&1; then
        check "run $s: bitwise equal to none" cmp "$T/none.pb" "$T/s.pb"
    else bad "run $s: $(tail -c 300 "$T/log")"; fi
done

# ---- bench --strategies all: dlfusion:paper listed, the oracle flag reported
"$PY" - "$T/small.onnx" <<'EOF' >"$T/log" 2>&1 || bad "small model: $(tail -c 300 "$T/log")"
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
r = np.random.RandomState(1)
nodes, inits, x = [], [], "x"
for i in range(4):
    w = numpy_helper.from_array(r.uniform(-0.3, 0.3, (16, 16 if i else 3, 3, 3)).astype(np.float32), "w%d" % i)
    inits.append(w)
    nodes.append(helper.make_node("Conv", [x, "w%d" % i], ["c%d" % i], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Relu", ["c%d" % i], ["r%d" % i]))
    x = "r%d" % i
g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 16, 32, 32])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
EOF
"$PZ" bench "$T/small.onnx" --threads 2 --repeat 3 --target "$T/lose.json" --json \
    --strategies all >"$T/b.json" 2>"$T/b.err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "bench --strategies all"; else bad "bench --strategies all: exit $rc: $(tail -c 400 "$T/b.err")"; fi
check "bench: dlfusion:paper listed, oracle flag on every strategy" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["models"][0]["strategies"]
names = [x["name"] for x in s]
assert names == ["none", "fixed-mp", "dynamic-mp", "fuse-all", "fusion-fixed-mp", "dlfusion",
                 "dlfusion:paper", "oracle", "dp", "best"], names
for x in s:
    assert isinstance(x["beats_oracle"], bool) and x["vs_oracle"] > 0 and x["noise"] >= 0.02, x
o = s[names.index("oracle")]
assert o["beats_oracle"] is False and abs(o["vs_oracle"] - 1) < 1e-9, o' "$T/b.json"
# the oracle chooses last, seeded with every other strategy's schedule
if grep -q 'oracle: seeded with the schedules of none, fixed-mp, .*dlfusion:paper, dp, best (' "$T/b.err"
then ok "bench: the oracle seeded with dp's and best's schedules"
else bad "bench: no oracle seeds line naming dp and best: $(grep oracle "$T/b.err" | tail -c 400)"; fi

# ---- errors -------------------------------------------------------------------
"$PZ" tune "$T/mv2.onnx" --strategy dlfusion:fast --target "$T/lose.json" -o "$T/bad.json" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'dlfusion takes no option but "paper"' "$T/err" && [ ! -e "$T/bad.json" ]; then
    ok "dlfusion:fast refused"
else bad "dlfusion:fast: exit $rc: $(tail -c 300 "$T/err")"; fi
"$PZ" run "$T/mv2.onnx" --strategy warp-speed >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'dlfusion:paper' "$T/err"; then ok "the known strategies list dlfusion:paper"
else bad "unknown strategy: exit $rc: $(tail -c 300 "$T/err")"; fi

finish
