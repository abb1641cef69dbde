#!/bin/sh
# bench/sparsity/run.sh [BUILD_DIR] - the sparsity knob: speed against ratio
# per layer kind, and the accuracy cost, on the torchvision exports in
# build/test-models (make models).
#
# Speed: ResNet-50 at 1 thread, `paleozoic run --profile` (each layer's median
# of its profile runs) in interleaved rounds (ROUNDS, default 3) of the
# configurations CONFIGS (default: direct shipped s0 s50 s75 s90): dense direct
# (PZ_WINOGRAD=0), dense as shipped (Winograd where it pays), --sparsity 0
# (must equal dense: the knob off), 0.5, 0.75, 0.9; also s75d (0.75 with
# PZ_WINOGRAD=0: the sparse direct conv on every layer, the same weights) and
# s99 (0.99: nearly every block zero, what the sparse Winograd's transforms
# take). SPEED_ONLY=1 skips the accuracy part. Per layer, the fastest round of each (a loaded host: the minimum is the
# least disturbed), grouped by kind (1x1, 3x3, and the FC layer, which has no
# sparse kernel: the knob is refused there, so its column is the dense one);
# the speed-up of each ratio over dense direct and how many layers of each
# kind are at least 2x faster at 75%. Each run takes the lock
# /tmp/pz_bench.lock when flock is there (shared hosts).
#
# Accuracy: the six networks on their recorded input (NAME.input.pb), dense
# and at 0.5, 0.75, 0.9: the cosine of the output against dense and whether
# the top-1 class is kept (pruning without retraining: the cost is large).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build}
PZ="$B/paleozoic"
M="$ROOT/build/test-models"
PY=${PY:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LOCK=""
command -v flock >/dev/null 2>&1 && LOCK="flock /tmp/pz_bench.lock"

echo "== speed: resnet50, 1 thread, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
CONFIGS=${CONFIGS:-direct shipped s0 s50 s75 s90}
r=0
while [ "$r" -lt "${ROUNDS:-3}" ]; do
    for c in $CONFIGS; do
        case $c in
        direct) $LOCK env PZ_WINOGRAD=0 "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile ;;
        shipped) $LOCK "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile ;;
        s75d) $LOCK env PZ_WINOGRAD=0 "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile --sparsity 0.75 ;;
        *) $LOCK "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile --sparsity "0.${c#s}" ;;
        esac >"$T/$c.$r" 2>&1
    done
    r=$((r + 1))
done
"$PY" - "$T" "$M/resnet50.onnx" $CONFIGS <<'EOF2'
import glob, os, sys
import onnx
T, model, cfgs = sys.argv[1], sys.argv[2], sys.argv[3:]
kind = {}
for n in onnx.load(model).graph.node:
    if n.op_type == "Conv":
        k = [a.ints for a in n.attribute if a.name == "kernel_shape"][0]
        kind[n.name] = "%dx%d" % (k[0], k[1])
    elif n.op_type in ("Gemm", "MatMul"):
        kind[n.name] = "FC"
best = {c: {} for c in cfgs}
kern = {}
for c in cfgs:
    for f in glob.glob(os.path.join(T, c + ".*")):
        for line in open(f):
            # layer op name block mp ms % kernel (the kernel may be two words)
            p = line.split()
            if len(p) >= 8 and p[0].isdigit() and p[2] in kind:
                best[c][p[2]] = min(float(p[5]), best[c].get(p[2], 1e9))
                kern[(c, p[2])] = "_".join(p[7:])
# the speed-ups of each ratio over dense direct, and of 75% over dense as shipped
ref = "direct" if "direct" in cfgs else cfgs[0]
xs = [c for c in cfgs if c.startswith("s") and c != "s0"]
x75 = "s75" if "s75" in cfgs else None
names = list(best[cfgs[0]])
hdr = ["%8s" % c for c in cfgs] + ["%6s" % ("x" + c[1:]) for c in xs]
if x75 and "shipped" in cfgs:
    hdr.append("%7s" % "x75/sh")
print("%-44s %-5s %s  %s" % ("layer", "kind", " ".join(hdr), "kernels (shipped/s75)"))
tot, n2x = {}, {}
for n in names:
    k = kind[n]
    if kern.get(("shipped", n)) == "winograd":
        k += "w"   # dense as shipped is Winograd
    v = {c: best[c].get(n, float("nan")) for c in cfgs}
    row = ["%8.3f" % v[c] for c in cfgs] + ["%6.2f" % (v[ref] / v[c]) for c in xs]
    if x75 and "shipped" in cfgs:
        row.append("%7.2f" % (v["shipped"] / v["s75"]))
    print("%-44s %-5s %s  %s/%s" % (n[-44:], k, " ".join(row), kern.get(("shipped", n)),
                                     kern.get(("s75", n))))
    if x75 and not kern.get(("s75", n), "").startswith("sparse"):
        k += "*"   # no sparse kernel (the first conv: 3 input channels; the FC)
    t = tot.setdefault(k, {c: 0.0 for c in cfgs})
    for c in cfgs:
        t[c] += v[c]
    a = n2x.setdefault(k, [0, 0, 0])
    if x75:
        a[0] += v[ref] / v["s75"] >= 2.0
        a[1] += "shipped" in cfgs and v["shipped"] / v["s75"] >= 2.0
    a[2] += 1
print()
print("per kind (sum of the layers' ms; w: dense as shipped is Winograd; *: layers without a "
      "sparse kernel, the knob leaves them dense):")
print("%-6s %s  %s" % ("kind", " ".join("%8s" % c for c in cfgs),
                       ">=2x at 75%% over %s, over shipped" % ref))
for k, t in sorted(tot.items()):
    print("%-6s %s  %d, %d of %d" % (k, " ".join("%8.3f" % t[c] for c in cfgs), *n2x[k]))
EOF2

[ "${SPEED_ONLY:-0}" = 1 ] && exit 0
echo
echo "== accuracy: cosine of the output against dense, top-1 kept"
for net in alexnet vgg16 vgg19 resnet18 resnet50 mobilenet_v2; do
    [ -f "$M/$net.onnx" ] || { echo "$net: missing"; continue; }
    "$PZ" run "$M/$net.onnx" --input "$M/$net.input.pb" --output "$T/$net.d.pb" >/dev/null 2>&1
    for s in 0.5 0.75 0.9; do
        "$PZ" run "$M/$net.onnx" --input "$M/$net.input.pb" --sparsity "$s" --output "$T/$net.$s.pb" >/dev/null 2>&1
    done
    "$PY" - "$T" "$net" <<'EOF2'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
T, net = sys.argv[1], sys.argv[2]
ld = lambda p: numpy_helper.to_array(onnx.load_tensor(p)).astype(np.float64).ravel()
d = ld("%s/%s.d.pb" % (T, net))
out = []
for s in ("0.5", "0.75", "0.9"):
    x = ld("%s/%s.%s.pb" % (T, net, s))
    if not np.linalg.norm(x):
        out.append("%s: output all zero" % s)
        continue
    cos = x @ d / np.linalg.norm(x) / np.linalg.norm(d)
    out.append("%s: cos %.4f top-1 %s" % (s, cos, "kept" if x.argmax() == d.argmax() else "changed"))
print("%-13s %s" % (net, "   ".join(out)))
EOF2
done
