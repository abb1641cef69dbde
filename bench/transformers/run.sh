#!/bin/sh
# bench/transformers/run.sh [options] - the transformer benchmark (issue 42):
# ViT-B/16 and a BERT-base-class encoder at sequence 128 and 384, ours (the
# executable `paleozoic build` makes) against ONNX Runtime 1.30 and 1.17,
# interleaved, at 1 and 2 threads. One command:
#   1. installs onnxruntime-node@1.30.0 into bench/transformers/ort130 and
#      1.17.0 into ./node_modules where missing (npm; --ignore-scripts: the
#      skipped script only fetches GPU providers);
#   2. builds paleozoic and the FMA-peak probe (bench/peers/peak.c);
#   3. exports the models into build/test-models where missing
#      (tools/export_transformers.py, PyTorch);
#   4. builds our executables (`paleozoic build`, default strategy; NET.bf16
#      with --precision bf16 when bf16 is asked for);
#   5. runs bench.js: the table (median ms, GFLOP/s, % of peak, ratios) into
#      OUT/transformers.md and .json.
# Options: --nets a,b (default vit_b_16,bert_base_128,bert_base_384)
#          --threads 1,2   --rounds R (default 5)   --runs K (default 5)
#          --precisions fp32,bf16,int8-dynamic (default fp32,bf16; ONNX Runtime
#          runs fp32)
#          --out DIR (default bench/transformers/out)   --build DIR (default build)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=build NETS=vit_b_16,bert_base_128,bert_base_384 THREADS=1,2 ROUNDS=5 RUNS=5 PRECS=fp32,bf16
OUTD=bench/transformers/out
while [ $# -gt 0 ]; do
    case "$1" in
    --nets) NETS=$2 ;; --threads) THREADS=$2 ;; --precisions) PRECS=$2 ;; --rounds) ROUNDS=$2 ;; --runs) RUNS=$2 ;;
    --out) OUTD=$2 ;; --build) B=$2 ;;
    *) echo "bench/transformers: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
fail() { echo "bench/transformers: error: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node is missing (tools/setup.sh installs it)"
O130=bench/transformers/ort130
if ! grep -qs '"version": "1.30.0"' "$O130/node_modules/onnxruntime-node/package.json"; then
    echo "bench/transformers: installing onnxruntime-node@1.30.0 into $O130"
    mkdir -p "$O130"
    npm install --prefix "$O130" --ignore-scripts --no-save --no-audit --no-fund \
        onnxruntime-node@1.30.0 >/dev/null || fail "npm install onnxruntime-node@1.30.0 failed"
fi
if ! grep -qs '"version": "1.17.0"' node_modules/onnxruntime-node/package.json; then
    npm install --no-save --no-audit --no-fund onnxruntime-node@1.17.0 >/dev/null ||
        fail "npm install onnxruntime-node@1.17.0 failed"
fi
make -s BUILD="$B" "$B/paleozoic" >/dev/null || fail "make BUILD=$B failed"
cc -std=c11 -D_GNU_SOURCE -O2 -o "$B/bench_peers_peak" bench/peers/peak.c -lpthread ||
    fail "cannot build bench/peers/peak.c"
M="$B/test-models"
mkdir -p "$M" "$B/transformers"
for n in $(echo "$NETS" | tr , ' '); do
    if [ ! -f "$M/$n.onnx" ]; then
        echo "bench/transformers: exporting $n (PyTorch)"
        /usr/bin/python3 tools/export_transformers.py "$M" "$n" || fail "export of $n failed"
    fi
    for pr in $(echo "$PRECS" | tr , ' '); do
        exe="$B/transformers/$n"
        [ "$pr" = fp32 ] || exe="$exe.$pr"
        if [ ! -x "$exe" ] || [ "$M/$n.onnx" -nt "$exe" ] || [ "$B/paleozoic" -nt "$exe" ]; then
            echo "bench/transformers: paleozoic build $n --precision $pr"
            "$B/paleozoic" build "$M/$n.onnx" -o "$exe" --precision "$pr" >/dev/null ||
                fail "paleozoic build $n --precision $pr failed"
        fi
    done
done
exec node bench/transformers/bench.js --pz "$B/paleozoic" --models "$M" --exe-dir "$B/transformers" \
    --nets "$NETS" --threads "$THREADS" --precisions "$PRECS" --rounds "$ROUNDS" --runs "$RUNS" --out "$OUTD" \
    --peak "$B/bench_peers_peak"
