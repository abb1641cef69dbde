#!/bin/sh
# bench/peers/run.sh [options] - the peer benchmark (issue 6): ONNX Runtime 1.17
# and our executable, side by side, interleaved, on the same input, batch 1, at
# 1 and 2 threads, over the six networks. One command:
#
#   1. installs onnxruntime-node@1.17.0 into ./node_modules if it is missing;
#   2. builds paleozoic (make BUILD=DIR) and the FMA-peak probe (peak.c);
#   3. makes build/test-models/NAME.onnx + NAME.input.pb where missing
#      (tools/export_torchvision.py, else `paleozoic zoo` and a seeded input);
#   4. runs harness.js: per thread count and network, a probe round that checks
#      the two engines' outputs agree, then R rounds alternating an ORT process
#      (ort_bench.js: graph optimization 'all', intra-op threads = N, sequential)
#      and ours (`paleozoic build MODEL -o EXE --strategy S`, run as
#      `EXE --input X.pb --repeat K --threads N`; until `build` exists,
#      `paleozoic run`, labelled so); peak RSS of each by /usr/bin/time;
#   5. prints a table per thread count (median ms, GFLOP/s, % of the FMA peak
#      probed in the same run, peak RSS, ORT/ours, geomean) and writes
#      peers.json, peers.md and peers.svg into the output directory, all three
#      or none.
#
# Options:
#   --quick            resnet18 and mobilenet_v2, 2 rounds of ~0.5 s (a smoke run)
#   --nets a,b,...     networks (default: all six; also regnet_y_400mf resnext50_32x4d
#                      mobilenet_v3_small efficientnet_b0 shufflenet_v2_x1_0 squeezenet1_0
#                      densenet121 googlenet, exported with PyTorch)
#   --threads 1,2      thread counts (default 1,2)
#   --rounds R         interleaved rounds per network (default 5)
#   --round-time S     seconds per engine per round; sets the runs per process (default 3)
#   --out DIR          where the files go (default bench/peers/out; also $OUT)
#   --build DIR        our build directory (default build; also $BUILD)
#   --models DIR       the networks (default build/test-models, as the tests)
#   --strategy S       our strategy (default $PZ_PEERS_STRATEGY or "best"; when the
#                      tool does not know "best", its default strategy, labelled)
#   --tol X            output agreement required (default 1e-3, normalised max error)
#   --ort DIR          the peer from DIR/node_modules/onnxruntime-node (e.g.
#                      bench/transformers/ort130, ONNX Runtime 1.30; default 1.17)
#   --timeout S        kill a process after S seconds (default 900)
#   --keep-going       a failing network becomes a FAILED row (exit 1) instead of
#                      stopping the run
#   --no-make          use DIR/paleozoic as it is (do not run make)
# Exit: 0 on success, 1 on a failure (nothing written), 2 on bad options.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=${BUILD:-build}
# the options run.sh itself needs (the rest go to harness.js unchanged)
prev=""
make=1
for a in "$@"; do
    [ "$prev" = "--build" ] && B=$a
    [ "$a" = "--no-make" ] && make=0
    prev=$a
done
fail() {
    echo "bench/peers: error: $*" >&2
    exit 1
}

command -v node >/dev/null 2>&1 || fail "node is missing (tools/setup.sh installs it)"
command -v cc >/dev/null 2>&1 || fail "cc is missing (tools/setup.sh installs it)"
command -v timeout >/dev/null 2>&1 || fail "timeout (coreutils) is missing"
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (apt-get install time)"

# 1. the peer, pinned
if [ ! -f node_modules/onnxruntime-node/package.json ] ||
   ! grep -q '"version": "1.17.0"' node_modules/onnxruntime-node/package.json; then
    command -v npm >/dev/null 2>&1 || fail "npm is missing (tools/setup.sh installs it)"
    echo "bench/peers: installing onnxruntime-node@1.17.0 (npm)"
    npm install --no-save --no-audit --no-fund onnxruntime-node@1.17.0 >/dev/null ||
        fail "npm install onnxruntime-node@1.17.0 failed"
fi

# 2. ours and the peak probe
if [ "$make" = 1 ]; then
    echo "bench/peers: building $B/paleozoic"
    make -s -j2 BUILD="$B" "$B/paleozoic" >/dev/null || fail "make BUILD=$B failed"
fi
[ -x "$B/paleozoic" ] || fail "$B/paleozoic is not built"
mkdir -p "$B"
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$B/bench_peers_peak" bench/peers/peak.c -lpthread ||
    fail "cannot build bench/peers/peak.c"

# 3-5. models, the interleaved runs, the reports
[ -n "${OUT:-}" ] && set -- --out "$OUT" "$@"
exec node bench/peers/harness.js --build "$B" "$@"
