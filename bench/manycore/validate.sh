#!/bin/sh
# bench/manycore/validate.sh [BUILD_DIR] - the many-core model (src/opt/simulate.h)
# against this machine: at 1 and 2 threads, the schedules the strategies choose here
# (`paleozoic tune --threads T`) are timed (`paleozoic run --schedule --repeat`) and
# predicted (`paleozoic space --simulate-cores T --schedule`), and the error is printed.
#
# Each timing holds /tmp/pz_bench.lock (flock) for one `run` only; the strategies
# of a network and thread count are timed round robin (ROUNDS rounds of REPEAT
# runs), so machine load hits them alike; the median of the rounds' medians is
# kept, and the least run of all (the one load disturbed least). Prints one table
# per network (markdown) and the load average before and after.
# Environment: MODELS (folder of NAME.onnx, default models/), NETS (default
# resnet50 mobilenet_v2), THREADS (default "1 2"), ROUNDS (5), REPEAT (5), PZ (the
# binary, default BUILD_DIR/paleozoic: a copy keeps a rebuild from breaking a run).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
MODELS=${MODELS:-$ROOT/models}
NETS=${NETS:-resnet50 mobilenet_v2}
THREADS=${THREADS:-1 2}
ROUNDS=${ROUNDS:-5}
REPEAT=${REPEAT:-5}
STRATS="none fixed-mp dynamic-mp fuse-all fusion-fixed-mp dlfusion"
P=${PZ:-$ROOT/$B/paleozoic}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$ROOT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $NETS; do
    M="$MODELS/$n.onnx"
    [ -f "$M" ] || "$P" zoo "$n" -o "$M" >/dev/null
    echo
    echo "### $n"
    echo
    echo "| threads | strategy | blocks | measured median ms | min ms | predicted ms | error (median) | error (min) |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
    for t in $THREADS; do
        for s in $STRATS; do
            "$P" tune "$M" --strategy "$s" --threads "$t" -o "$W/$s-$t.json" >/dev/null 2>&1
        done
        r=0
        while [ $r -lt "$ROUNDS" ]; do
            for s in $STRATS; do
                flock /tmp/pz_bench.lock "$P" run "$M" --schedule "$W/$s-$t.json" --threads "$t" \
                    --repeat "$REPEAT" 2>/dev/null | sed -n 's/.*latency_ms median=\([0-9.]*\) min=\([0-9.]*\).*/\1 \2/p' \
                    >>"$W/$s-$t.ms"
            done
            r=$((r + 1))
        done
        for s in $STRATS; do
            meas=$(cut -d' ' -f1 "$W/$s-$t.ms" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
            least=$(cut -d' ' -f2 "$W/$s-$t.ms" | sort -g | head -1)
            out=$("$P" space "$M" --simulate-cores "$t" --schedule "$W/$s-$t.json")
            pred=$(echo "$out" | sed -n 's/.*predicted \([0-9.]*\) ms.*/\1/p')
            nb=$(echo "$out" | sed -n 's/.*(\([0-9]*\) blocks).*/\1/p')
            awk -v t="$t" -v s="$s" -v nb="$nb" -v m="$meas" -v l="$least" -v p="$pred" 'BEGIN {
                printf "| %s | %s | %s | %.3f | %.3f | %.3f | %+.0f%% | %+.0f%% |\n", t, s, nb, m, l, p,
                    (p / m - 1) * 100, (p / l - 1) * 100 }'
        done
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
