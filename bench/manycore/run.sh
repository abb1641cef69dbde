#!/bin/sh
# bench/manycore/run.sh [BUILD_DIR] [OUT_DIR] - DLFusion Fig. 10 in simulation
# (issue 45, item 4): the strategies of Table III, and dp (ours), choose their
# schedules for 8, 16 and 32 simulated cores, and the many-core model
# (src/opt/simulate.h) predicts their speed-ups over `none`.
#
# Writes OUT_DIR (default bench/manycore): fig10-NET.svg (grouped bars, the
# assumptions in the caption) and fig10-NET.txt (the table: predicted ms,
# speed-up, blocks as LAYERS@MP, and the assumptions with this machine's
# figures). The profile is the default one (cached in $XDG_CACHE_HOME/paleozoic,
# measured on first use) unless TARGET names one; the probes (bandwidth,
# fork-join) are cached next to it. Nothing here is timed: the figures are
# predictions. Environment: MODELS (folder of NAME.onnx, default models/; the
# zoo writes missing ones), NETS (default resnet50 mobilenet_v2), CORES
# (default 8,16,32), PROBES (a manycore-v1 file of probe figures to use
# instead of this host's: copied into a scratch XDG_CACHE_HOME).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
OUT=${2:-$ROOT/bench/manycore}
MODELS=${MODELS:-models}
NETS=${NETS:-resnet50 mobilenet_v2}
CORES=${CORES:-8,16,32}
P="$ROOT/$B/paleozoic"
cd "$ROOT"
mkdir -p "$OUT" "$MODELS"
if [ -n "${PROBES:-}" ]; then
    XDG_CACHE_HOME=$(mktemp -d)
    export XDG_CACHE_HOME
    trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
    mkdir -p "$XDG_CACHE_HOME/paleozoic"
    cp "$PROBES" "$XDG_CACHE_HOME/paleozoic/manycore-v1-$(getconf _NPROCESSORS_ONLN)cpu.json"
fi
for n in $NETS; do
    M="$MODELS/$n.onnx"
    [ -f "$M" ] || "$P" zoo "$n" -o "$M" >/dev/null
    if [ -n "${TARGET:-}" ]; then
        "$P" space "$M" --simulate-cores "$CORES" --target "$TARGET" --svg "$OUT/fig10-$n.svg" >"$OUT/fig10-$n.txt"
    else
        "$P" space "$M" --simulate-cores "$CORES" --svg "$OUT/fig10-$n.svg" >"$OUT/fig10-$n.txt"
    fi
    echo "wrote $OUT/fig10-$n.svg and .txt"
done
