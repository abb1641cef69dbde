#!/bin/sh
# 45-fusion.sh BUILD_DIR MODELDIR - fused execution of F-Blocks (issue 5) on
# the six networks, end to end.
#
# For each network: the default run (one block per layer, MP 1: unfused) is
# checked against PyTorch (NAME.torch.pb, max |ours - torch| / max |torch| <=
# 1e-4); then `paleozoic run --schedule` with fuse-all (every layer in one
# block on 2 cores, split auto) and 20 random partitions (6 on ResNet-50,
# AlexNet and the VGGs; PZ_FUSION_RANDOM=N for any count) into consecutive
# blocks with random MP (1-2), split (bands only where every layer of the
# block is row-local, else auto or channels) and strip (0 = auto, or 1 to the
# block's last layer's rows), generated here with python3 from `paleozoic
# inspect --strategy none --json`, must give output BITWISE identical to the
# default run (cmp of the --output files), with a profile showing fused runs
# for fuse-all. For ResNet-18 and MobileNetV2, 3 random bands schedules on 2
# cores: the redundant MACs that `paleozoic inspect --schedule` counts and
# those the runtime's --profile reports must agree block by block. Under a sanitizer build (BUILD_DIR with "san" in its name) the
# VGGs, AlexNet and ResNet-50 are skipped (minutes each there) and 4 random
# partitions run per network.
set -u
NAME=45-fusion
. "$(dirname "$0")/lib.sh"
part_init "$@"

NETS="${FUSION_NETS:-resnet18 mobilenet_v2 resnet50 alexnet vgg16 vgg19}"
# random partitions per network: 20 on ResNet-18 and MobileNetV2, 6 on the
# four large networks (seconds per run each); PZ_FUSION_RANDOM=N sets all
NRANDOM=20
NRANDOM_BIG=${PZ_FUSION_RANDOM:-6}
[ -n "${PZ_FUSION_RANDOM:-}" ] && NRANDOM=$PZ_FUSION_RANDOM
case "$san" in 1)
    NETS="resnet18 mobilenet_v2"
    NRANDOM=4
    echo "skip resnet50 alexnet vgg16 vgg19 under a sanitizer build (too slow there)" ;;
esac

for n in $NETS; do
    nrand=$NRANDOM
    case "$n" in resnet50|alexnet|vgg16|vgg19) [ "$nrand" -gt "$NRANDOM_BIG" ] && nrand=$NRANDOM_BIG ;; esac
    if [ ! -f "$M/$n.onnx" ] || [ ! -f "$M/$n.input.pb" ] || [ ! -f "$M/$n.torch.pb" ]; then
        bad "$n: $M/$n.onnx, .input.pb or .torch.pb missing (tests/models.sh exports them)"
        continue
    fi
    mkdir -p "$T/$n"
    if ! "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/$n/default.pb" \
        --threads 1 >"$T/log" 2>&1; then
        bad "$n: default run failed"; tail -n 5 "$T/log"; continue
    fi
    if "$PY" - "$T/$n/default.pb" "$M/$n.torch.pb" >"$T/log" 2>&1 <<'EOF'
import sys, onnx, numpy as np
from onnx import numpy_helper
a, b = (numpy_helper.to_array(onnx.load_tensor(p)) for p in sys.argv[1:3])
err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)
print("max |ours - torch| / max |torch| = %.3g" % err)
sys.exit(0 if a.shape == b.shape and err <= 1e-4 else 1)
EOF
    then ok "$n: default (unfused MP 1) run matches PyTorch ($(cat "$T/log"))"
    else bad "$n: default run differs from PyTorch: $(cat "$T/log")"
    fi
    if ! "$PZ" inspect "$M/$n.onnx" --strategy none --json >"$T/$n/layers.json" 2>"$T/log"; then
        bad "$n: inspect --strategy none --json"; cat "$T/log"; continue
    fi
    # fuse-all.json and random-K.json from the one-block-per-layer view
    if ! "$PY" - "$T/$n/layers.json" "$T/$n" "$nrand" "$n" 2>"$T/log" <<'EOF'
import json, random, sys
view = json.load(open(sys.argv[1]))
out, nrand = sys.argv[2], int(sys.argv[3])
blocks = view["blocks"]
L = view["layers"]
rows = [b["layers"][0].get("rows", 0) for b in blocks]
local = [bool(b.get("row_local", False)) for b in blocks]
def write(name, bl):
    json.dump({"version": 1, "layers": L, "blocks": bl}, open("%s/%s.json" % (out, name), "w"))
write("fuse-all", [{"first": 0, "count": L, "mp": 2, "split": "auto"}])
rnd = random.Random(sum(map(ord, sys.argv[4])))
for k in range(nrand):
    bl, at = [], 0
    while at < L:
        cnt = min(L - at, rnd.choice([1, 2, 3, 4, 6, 8, 12, 20]))
        last = at + cnt - 1
        splits = ["auto", "channels"] + (["bands"] * 2 if all(local[at:at + cnt]) else [])
        b = {"first": at, "count": cnt, "mp": rnd.randint(1, 2), "split": rnd.choice(splits)}
        if rows[last] > 0 and rnd.random() < 0.7:
            b["strip"] = rnd.randint(0, rows[last])
        bl.append(b)
        at += cnt
    write("random-%d" % k, bl)
EOF
    then bad "$n: generating schedules"; cat "$T/log"; continue
    fi
    # fuse-all: bitwise, and the profile shows fused runs
    if "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/out.pb" --threads 2 \
        --schedule "$T/$n/fuse-all.json" --profile >"$T/log" 2>&1 && clean "$T/log" &&
       cmp -s "$T/out.pb" "$T/$n/default.pb" && grep -q "layers in [0-9]* runs" "$T/log"; then
        ok "$n: fuse-all on 2 cores: bitwise identical to unfused MP 1 ($(grep -o '[0-9]* layers in [0-9]* runs, [a-z]*' "$T/log" | head -1))"
    else
        bad "$n: fuse-all: exit, sanitizer, no fused run, or output differs"; tail -n 5 "$T/log"
    fi
    k=0
    nok=0
    while [ "$k" -lt "$nrand" ]; do
        rm -f "$T/out.pb"
        if "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/out.pb" --threads 2 \
            --schedule "$T/$n/random-$k.json" >"$T/log" 2>&1 && clean "$T/log" &&
           cmp -s "$T/out.pb" "$T/$n/default.pb"; then
            nok=$((nok + 1))
        else
            bad "$n: random partition $k: exit, sanitizer or output differs"
            tail -n 5 "$T/log"
            cp "$T/$n/random-$k.json" "/tmp/45-fusion-$n-random-$k.json" 2>/dev/null &&
                echo "     (schedule kept in /tmp/45-fusion-$n-random-$k.json)"
        fi
        k=$((k + 1))
    done
    [ "$nok" -eq "$nrand" ] && ok "$n: $nrand random partitions (MP, split, strip): all bitwise identical"
    # redundant MACs: the compiler's count (inspect --schedule, src/opt/halo.c)
    # and the runtime's (run --profile, src/rt/fuse.c) must agree, block by
    # block, under bands schedules on 2 cores: random partitions of the
    # network's leading Conv/MaxPool layers, each conv on the algorithm the
    # runtime's rule gives it (Winograd convs computed by whole tile rows),
    # including the 7x7 convs the runtime computes by pairs of rows
    case "$n" in resnet18|mobilenet_v2) ;; *) continue ;; esac
    for seed in 1 2 3; do
        if "$PY" - "$PZ" "$M/$n.onnx" "$M/$n.input.pb" "$seed" \
            >"$T/log" 2>&1 <<'EOF'
import filecmp, json, os, random, re, subprocess, sys, tempfile
pz, model, inp, seed = sys.argv[1:5]
def sh(*a):
    return subprocess.run(a, capture_output=True, text=True)
view = json.loads(sh(pz, "inspect", model, "--strategy", "none", "--json").stdout)
L = view["layers"]
ops = [b["layers"][0]["op"] for b in view["blocks"]]
lead = 0
while lead < L and view["blocks"][lead]["row_local"] and ops[lead] in ("Conv", "MaxPool"):
    lead += 1
rnd = random.Random(int(seed))
bl, at = [], 0
while at < L:
    if at < lead:
        cnt = min(rnd.randint(2, 9), lead - at)
        if lead - at - cnt == 1:
            cnt += 1   # no block of one layer: it has no halo to compare
        bl.append({"first": at, "count": cnt, "mp": 2, "split": "bands"})
    else:
        cnt = 1
        bl.append({"first": at, "count": 1, "mp": 1})
    at += cnt
d = tempfile.mkdtemp()
sched, out = os.path.join(d, "s.json"), os.path.join(d, "out.pb")
json.dump({"version": 1, "layers": L, "blocks": bl}, open(sched, "w"))
# the reference: unfused MP 1 with the same convs (the runtime's rule)
one, ref = os.path.join(d, "one.json"), os.path.join(d, "ref.pb")
json.dump({"version": 1, "layers": L, "blocks": [{"first": i, "count": 1, "mp": 1}
                                                 for i in range(L)]}, open(one, "w"))
ins = sh(pz, "inspect", model, "--schedule", sched, "--threads", "2", "--json")
run = sh(pz, "run", model, "--input", inp, "--output", out, "--schedule", sched,
         "--threads", "2", "--profile")
r1 = sh(pz, "run", model, "--input", inp, "--output", ref, "--schedule", one, "--threads", "2")
if ins.returncode or run.returncode or r1.returncode:
    sys.exit("inspect or run failed: " + ins.stderr + run.stderr + r1.stderr)
if not filecmp.cmp(out, ref, shallow=False):
    sys.exit("output differs from unfused MP 1 with the same convs")
prof = {}
pat = r"\s*(\d+) \d+\.\.\d+\s.*?(\d+) layers in (\d+) runs, (\w+), strip \d+, redundant MACs (\d+)"
for line in (run.stdout + run.stderr).splitlines():
    m = re.match(pat, line)
    if m:
        prof[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), m.group(4), int(m.group(5)))
bad = n = total = 0
for b in json.loads(ins.stdout)["blocks"]:
    if b["split_counted"] != "bands":
        continue
    i = b["index"]
    if i not in prof or prof[i][:3] != (b["count"], 1, "bands"):
        print("block %d: the runtime did not fuse its %d layers in one run in bands: %s"
              % (i, b["count"], prof.get(i)))
        bad += 1
        continue
    n += 1
    total += b["redundant_macs"]
    if prof[i][3] != b["redundant_macs"]:
        print("block %d (layers %d-%d): inspect counts %d redundant MACs, the runtime %d"
              % (i, b["first"], b["first"] + b["count"] - 1, b["redundant_macs"], prof[i][3]))
        bad += 1
print("%d bands blocks, %d redundant MACs, %d disagree" % (n, total, bad))
sys.exit(1 if bad or n < 2 or total == 0 else 0)
EOF
        then ok "$n: bands schedule $seed: inspect and the runtime count the same redundant MACs ($(tail -n 1 "$T/log")); output bitwise identical"
        else bad "$n: bands schedule $seed: redundant MACs of inspect and the runtime"; cat "$T/log"
        fi
    done
done
finish
