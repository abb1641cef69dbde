#!/bin/sh
# bench/int8/run.sh [options] - the int8 benchmark (issue 41): the six networks,
# ours in fp32 and int8 against ONNX Runtime 1.30 on the float model and on
# the same QDQ model, interleaved, at 1 and 2 threads. One command:
#   1. installs onnxruntime-node@1.30.0 into bench/transformers/ort130 where
#      missing (npm; --ignore-scripts: the skipped script fetches GPU providers);
#   2. builds paleozoic;
#   3. takes build/test-models/NET.onnx and NET.input.pb (tests/models.sh
#      exports them with PyTorch; else `paleozoic zoo` and a seeded input);
#   4. quantizes each (`paleozoic quantize`, min/max over 8 seeded inputs:
#      no trained weights or data here) and builds our two executables;
#   5. runs bench.js: the table into OUT/int8.md and .json.
# Options: --nets a,b (default resnet18,resnet50,mobilenet_v2,vgg16,vgg19,alexnet)
#          --threads 1,2   --rounds R (default 5)   --runs K (default 10)
#          --out DIR (default bench/int8/out)   --build DIR (default build)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=build NETS=resnet18,resnet50,mobilenet_v2,vgg16,vgg19,alexnet THREADS=1,2 ROUNDS=5 RUNS=10
OUTD=bench/int8/out
while [ $# -gt 0 ]; do
    case "$1" in
    --nets) NETS=$2 ;; --threads) THREADS=$2 ;; --rounds) ROUNDS=$2 ;; --runs) RUNS=$2 ;;
    --out) OUTD=$2 ;; --build) B=$2 ;;
    *) echo "bench/int8: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
fail() { echo "bench/int8: error: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node is missing (tools/setup.sh installs it)"
O130=bench/transformers/ort130
if ! grep -qs '"version": "1.30.0"' "$O130/node_modules/onnxruntime-node/package.json"; then
    echo "bench/int8: installing onnxruntime-node@1.30.0 into $O130"
    mkdir -p "$O130"
    npm install --prefix "$O130" --ignore-scripts --no-save --no-audit --no-fund \
        onnxruntime-node@1.30.0 >/dev/null || fail "npm install onnxruntime-node@1.30.0 failed"
fi
make -s BUILD="$B" "$B/paleozoic" >/dev/null || fail "make BUILD=$B failed"
PZ="$B/paleozoic" M="$B/test-models" W="$B/int8"
mkdir -p "$M" "$W"
for net in $(echo "$NETS" | tr , ' '); do
    if [ ! -f "$M/$net.onnx" ]; then
        "$PZ" zoo "$net" -o "$M/$net.onnx" >/dev/null || fail "paleozoic zoo $net"
    fi
    cp "$M/$net.onnx" "$W/$net.onnx"
    if [ -f "$M/$net.input.pb" ]; then
        cp "$M/$net.input.pb" "$W/$net.input.pb"
    else
        /usr/bin/python3 -c "
import numpy as np
from onnx import numpy_helper
x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
open('$W/$net.input.pb', 'wb').write(numpy_helper.from_array(x, 'input').SerializeToString())
" || fail "a seeded input for $net"
    fi
    "$PZ" quantize "$W/$net.onnx" -o "$W/$net.q.onnx" 2>/dev/null | tail -1 || fail "quantize $net"
    "$PZ" build "$W/$net.onnx" -o "$W/$net.fp32" >/dev/null || fail "build $net fp32"
    "$PZ" build "$W/$net.q.onnx" -o "$W/$net.int8" >/dev/null || fail "build $net int8"
done
node bench/int8/bench.js --dir "$W" --nets "$NETS" --threads "$THREADS" --rounds "$ROUNDS" \
    --runs "$RUNS" --out "$OUTD"
