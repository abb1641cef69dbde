#!/bin/sh
# bench/strategies/run.sh [BUILD_DIR] [OUT_DIR] - DLFusion Fig. 10 on this
# machine: every strategy of Table III, the measured oracle and ours (dp, best) on
# the six networks of the papers, through `paleozoic bench`.
#
# Per network and strategy: the median latency over interleaved runs, the
# speed-up over `none`, the search time, the blocks and MPs; then dlfusion's
# speed-up over none and its gap to oracle, and dp's gap to oracle.
# Goals (issue 8): dlfusion >= 1.8x over none on every network; dp within 3%
# of oracle.
#
# Writes OUT_DIR (default BUILD_DIR/bench-strategies): bench.txt (the
# table), bench.json, fig10.svg, target.json (the profile used: made with
# `characterize --quick` unless TARGET names one). Environment:
#   MODELS   folder of NAME.onnx (default build/test-models/, as the tests)
#   THREADS  cores (default: all online)
#   BUDGET   seconds of block timing for oracle and for dp (default 120)
#   REPEAT   interleaved rounds (default 10)
#   NETS     networks (default: resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2)
# Timings move with the machine's load: all schedules of a network are run
# interleaved so that load hits them alike, but a loaded machine flattens MP
# speed-ups; quote medians and say how loaded the machine was. bench.txt
# starts and ends with the load average and the FMA peak at THREADS threads
# (bench/peers/peak.c), and ends with the CPU time the hypervisor stole over
# the run: on this VM a 2-thread peak of 260-340 GFLOP/s instead of 360-380
# came with every time about 1.5x longer, none included.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
OUT=${2:-$B/bench-strategies}
MODELS=${MODELS:-$ROOT/build/test-models}
NETS=${NETS:-resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2}
THREADS=${THREADS:-$(nproc)}
BUDGET=${BUDGET:-120}
REPEAT=${REPEAT:-10}
cd "$ROOT"
make -s BUILD="$B" -j2 "$B/paleozoic"
mkdir -p "$OUT"
files=""
for n in $NETS; do
    [ -f "$MODELS/$n.onnx" ] || "$B/paleozoic" zoo "$n" -o "$MODELS/$n.onnx"
    files="$files $MODELS/$n.onnx"
done
if [ -n "${TARGET:-}" ]; then
    cp "$TARGET" "$OUT/target.json"
else
    "$B/paleozoic" characterize --quick --cores "$THREADS" -o "$OUT/target.json"
fi
S="none,fixed-mp,dynamic-mp,fuse-all,fusion-fixed-mp,dlfusion,oracle:budget=$BUDGET,dp:budget=$BUDGET,best"
# how disturbed the machine was: the FMA peak at THREADS threads (the median
# of 5 probes of 100 ms) before and after, and the CPU time the hypervisor
# stole (/proc/stat) over the run. A peak well below the quiet one, or steal,
# means the MP speed-ups below are flattened.
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$B/bench_peers_peak" bench/peers/peak.c -lpthread
peak() {
    for _ in 1 2 3 4 5; do "$B/bench_peers_peak" --threads "$THREADS" --ms 100; done |
        sed -n 's/.* total=\([0-9.]*\).*/\1/p' | sort -n | sed -n 3p
}
steal() { awk '/^cpu /{print $9}' /proc/stat; }
steal0=$(steal)
echo "machine load before: $(cat /proc/loadavg); FMA peak at $THREADS threads: $(peak) GFLOP/s" >"$OUT/bench.txt"
# shellcheck disable=SC2086
"$B/paleozoic" bench $files --threads "$THREADS" --repeat "$REPEAT" --target "$OUT/target.json" \
    --strategies "$S" --svg "$OUT/fig10.svg" --json >"$OUT/bench.json"
# the table, from the same data
/usr/bin/python3 - "$OUT/bench.json" >>"$OUT/bench.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    print("%s (%d cores, median of %d interleaved runs)" % (m["model"], d["cores"], d["rounds"]))
    s = {x["name"].split(":")[0]: x for x in m["strategies"]}
    for x in m["strategies"]:
        blocks = " ".join("%d@%d" % (b["layers"], b["mp"]) for b in x["blocks"])
        print("  %-18s %10.3f ms %6.2fx  search %7.2f s  %3d blocks  %s" % (
            x["name"].split(":")[0], x["median_ms"], x["speedup"], x["search_s"], len(x["blocks"]), blocks))
    if "dlfusion" in s and "oracle" in s:
        print("  dlfusion %.2fx over none, %+.1f%% vs oracle" % (
            s["dlfusion"]["speedup"], (s["dlfusion"]["median_ms"] / s["oracle"]["median_ms"] - 1) * 100))
    if "dp" in s and "oracle" in s:
        print("  dp (ours) %.2fx over none, %+.1f%% vs oracle" % (
            s["dp"]["speedup"], (s["dp"]["median_ms"] / s["oracle"]["median_ms"] - 1) * 100))
    if "best" in s and "oracle" in s:
        print("  best (ours, measured algorithms) %.2fx over none, %+.1f%% vs oracle" % (
            s["best"]["speedup"], (s["best"]["median_ms"] / s["oracle"]["median_ms"] - 1) * 100))
PY
echo "machine load after: $(cat /proc/loadavg); FMA peak at $THREADS threads: $(peak) GFLOP/s; stolen CPU time over the run: $(( ($(steal) - steal0) * 10 )) ms" >>"$OUT/bench.txt"
cat "$OUT/bench.txt"
