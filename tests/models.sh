#!/bin/sh
# models.sh BUILD_DIR [MODELDIR] - the six torchvision networks through
# `paleozoic inspect --json`, checked against torchvision's published numbers.
#
# Checks (one pass/fail each):
#   every model   loads; output shape [1,1000]; total MACs within 2% of the
#                 published count (ResNet-18 1.81G, ResNet-50 4.09G, VGG-16
#                 15.47G, VGG-19 19.6G, AlexNet 0.71G, MobileNetV2 0.30G)
#   resnet18      also: 20 Conv layers; total MACs within 1% of 1.81e9
# A model whose NAME.onnx, NAME.input.pb or NAME.torch.pb is missing from
# MODELDIR (default build/test-models/, apart from the models/ a user
# writes) is exported first with tools/export_torchvision.py; if
# /usr/bin/python3 cannot import torch the whole check is skipped with a
# message and counted as skipped. Prints `models: N passed, N failed, N skipped`.
set -u

B=${1:?usage: models.sh BUILD_DIR [MODELDIR]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
M=${2:-$ROOT/build/test-models}
PZ="$B/paleozoic"
PY=${PYTHON:-/usr/bin/python3}
NAMES="resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"

if [ ! -x "$PZ" ]; then
    echo "FAIL models: $PZ is not built"
    echo "models: 0 passed, 1 failed"
    exit 1
fi
missing=""
for n in $NAMES; do
    # the export writes all three; a file of another origin (a zoo model
    # with the same name) lacks the input and PyTorch's output
    for f in "$n.onnx" "$n.input.pb" "$n.torch.pb"; do
        if [ ! -f "$M/$f" ]; then missing="$missing $n"; break; fi
    done
done
if [ -n "$missing" ]; then
    if ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
        echo "models: skipped: $M lacks$missing and $PY cannot import torch/torchvision/onnx"
        echo "  (apt-get install python3-torch python3-torchvision python3-onnx)"
        echo "models: 0 passed, 0 failed, 1 skipped"
        exit 0
    fi
    echo "models: exporting$missing into $M (tools/export_torchvision.py)"
    mkdir -p "$M"
    # shellcheck disable=SC2086
    if ! "$PY" "$ROOT/tools/export_torchvision.py" "$M" $missing >/dev/null; then
        echo "FAIL models: export_torchvision.py failed"
        echo "models: 0 passed, 1 failed"
        exit 1
    fi
fi

pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# check_model NAME FILE LABEL
check_model() {
    n=$1
    file=$2
    label=$3
    "$PZ" inspect --json "$file" >"$out" 2>"$err"
    rc=$?
    # checks per model: loads, output shape, MACs (+ Conv count, MACs 1% for resnet18)
    checks=3
    [ "$n" = resnet18 ] && checks=5
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $label/$n: inspect exit code $rc (its $checks checks fail): $(head -c 300 "$err" | tr '\n' ' ')"
        fail=$((fail + checks))
        return
    fi
    pass=$((pass + 1)) # it loads
    # one line per check: "pass TEXT" or "FAIL TEXT"
    res=$("$PY" - "$n" "$out" "$label" <<'EOF'
import json, sys
name, path, label = sys.argv[1], sys.argv[2], sys.argv[3]
PUBLISHED = {"resnet18": 1.81e9, "resnet50": 4.09e9, "vgg16": 15.47e9, "vgg19": 19.6e9,
             "alexnet": 0.71e9, "mobilenet_v2": 0.30e9}
def check(ok, text):
    print(("pass " if ok else "FAIL ") + "%s/%s: %s" % (label, name, text))
try:
    j = json.load(open(path))
except Exception as e:
    check(False, "inspect --json is not valid JSON: %s" % e)
    sys.exit(0)
macs = j["total"]["macs"]
outs = j["outputs"]
shape = outs[0]["shape"] if len(outs) == 1 else None
check(shape == [1, 1000], "output shape %s, expected [1, 1000]" % (shape if shape is not None else
      "of %d outputs" % len(outs)))
want = PUBLISHED[name]
err = abs(macs - want) / want
check(err <= 0.02, "total MACs %.4g, published %.4g (%.2f%% off, 2%% allowed)"
      % (macs, want, 100 * err))
if name == "resnet18":
    convs = sum(1 for l in j["layers"] if l["op"] == "Conv")
    check(convs == 20, "%d Conv layers, expected 20" % convs)
    check(abs(macs - 1.81e9) / 1.81e9 <= 0.01, "total MACs %.4g within 1%% of 1.81e9" % macs)
EOF
)
    printf '%s\n' "$res"
    p=$(printf '%s\n' "$res" | grep -c '^pass')
    f=$(printf '%s\n' "$res" | grep -c '^FAIL')
    pass=$((pass + p))
    fail=$((fail + f))
    [ "$p" -gt 0 ] || [ "$f" -gt 0 ] || { echo "FAIL $label/$n: the checker printed nothing"; fail=$((fail + 1)); }
}

# 1. torch.onnx.export of torchvision
for n in $NAMES; do
    check_model "$n" "$M/$n.onnx" models
done

# 2. `paleozoic zoo`: same checks, and ONNX Runtime must load and run each file
Z="$B/zoo"
mkdir -p "$Z"
have_ort=0
[ -f "$ROOT/node_modules/onnxruntime-node/package.json" ] && command -v node >/dev/null && have_ort=1
for n in $NAMES; do
    if ! "$PZ" zoo "$n" -o "$Z/$n.onnx" >/dev/null 2>"$err"; then
        echo "FAIL zoo/$n: paleozoic zoo failed: $(head -c 300 "$err" | tr '\n' ' ')"
        fail=$((fail + 1))
        continue
    fi
    check_model "$n" "$Z/$n.onnx" zoo
    if [ "$have_ort" = 1 ]; then
        if (cd "$ROOT" && node tools/ort_check.js "$Z/$n.onnx") >"$out" 2>"$err"; then
            echo "pass zoo/$n: ONNX Runtime 1.17 loads and runs it ($(tail -n 1 "$out" | head -c 120))"
            pass=$((pass + 1))
        else
            echo "FAIL zoo/$n: ONNX Runtime: $(head -c 300 "$err" | tr '\n' ' ')"
            fail=$((fail + 1))
        fi
    else
        echo "FAIL zoo/$n: onnxruntime-node is not installed (tools/setup.sh installs it)"
        fail=$((fail + 1))
    fi
    rm -f "$Z/$n.onnx"
done
echo "models: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
