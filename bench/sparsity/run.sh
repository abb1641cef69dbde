#!/bin/sh
# bench/sparsity/run.sh [BUILD_DIR] - the sparsity knob: speed against ratio
# per layer kind, and the accuracy cost, on the torchvision exports in
# build/test-models (make models).
#
# Speed: ResNet-50 at 1 thread, `paleozoic run --profile` (each layer's median
# of its profile runs) in interleaved rounds (ROUNDS, default 3) of six
# configurations: dense direct (PZ_WINOGRAD=0), dense as shipped (Winograd
# where it pays), --sparsity 0 (must equal dense: the knob off), 0.5, 0.75,
# 0.9. Per layer, the fastest round of each (a loaded host: the minimum is the
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
r=0
while [ "$r" -lt "${ROUNDS:-3}" ]; do
    for c in direct shipped s0 s50 s75 s90; do
        case $c in
        direct) $LOCK env PZ_WINOGRAD=0 "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile ;;
        shipped) $LOCK "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile ;;
        *) $LOCK "$PZ" run "$M/resnet50.onnx" --threads 1 --repeat 3 --profile --sparsity "0.${c#s}" ;;
        esac >"$T/$c.$r" 2>&1
    done
    r=$((r + 1))
done
"$PY" - "$T" "$M/resnet50.onnx" <<'EOF2'
import glob, os, sys
import onnx
T, model = sys.argv[1], sys.argv[2]
kind = {}
for n in onnx.load(model).graph.node:
    if n.op_type == "Conv":
        k = [a.ints for a in n.attribute if a.name == "kernel_shape"][0]
        kind[n.name] = "%dx%d" % (k[0], k[1])
    elif n.op_type in ("Gemm", "MatMul"):
        kind[n.name] = "FC"
cfgs = ["direct", "shipped", "s0", "s50", "s75", "s90"]
best = {c: {} for c in cfgs}
kern = {}
for c in cfgs:
    for f in glob.glob(os.path.join(T, c + ".*")):
        for line in open(f):
            p = line.split()
            if len(p) >= 8 and p[0].isdigit() and p[2] in kind:
                ms = float(p[-3])
                best[c][p[2]] = min(ms, best[c].get(p[2], 1e9))
                kern[(c, p[2])] = p[-1]
names = [n for n in best["direct"]]
print("%-48s %-4s %8s %8s %8s %8s %8s %8s  %6s %6s %6s  %s" % (
    "layer", "kind", "direct", "shipped", "s0", "s50", "s75", "s90", "x50", "x75", "x90", "kernels (shipped/s75)"))
tot = {}
n2x = {}
for n in names:
    k = kind[n]
    v = [best[c].get(n, float("nan")) for c in cfgs]
    x = [v[0] / v[i] for i in (3, 4, 5)]
    print("%-48s %-4s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f  %6.2f %6.2f %6.2f  %s/%s" % (
        n[-48:], k, *v, *x, kern.get(("shipped", n)), kern.get(("s75", n))))
    if kern.get(("s75", n)) != "sparse":
        k += "*"   # no sparse kernel (the first conv: 3 input channels; the FC)
    t = tot.setdefault(k, [0.0] * 6)
    for i in range(6):
        t[i] += v[i]
    a = n2x.setdefault(k, [0, 0])
    a[0] += x[1] >= 2.0
    a[1] += 1
print()
print("per kind (sum of the layers' ms; *: layers without a sparse kernel, the knob leaves them dense):")
print("%-5s %8s %8s %8s %8s %8s %8s  %6s %6s %6s  %s" % ("kind", "direct", "shipped", "s0", "s50", "s75", "s90", "x50", "x75", "x90", ">=2x at 75%"))
for k, t in sorted(tot.items()):
    print("%-5s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f  %6.2f %6.2f %6.2f  %d of %d" % (
        k, *t, t[0] / t[3], t[0] / t[4], t[0] / t[5], n2x[k][0], n2x[k][1]))
EOF2

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
