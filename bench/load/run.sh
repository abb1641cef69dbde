#!/bin/sh
# bench/load/run.sh [BUILD_DIR] [MODEL.onnx] - how fast and how frugally the
# front-end loads a big model.
#
# Runs `paleozoic inspect` on VGG-19 (about 575 MB, nearly all of it weights;
# exported with tools/export_torchvision.py into build/test-models/ if it is not there)
# under /usr/bin/time -v, RUNS times, and prints the file size, the wall time
# and the peak RSS of each run, then the median time and the peak RSS over
# file size. Goal: under 3 s and under 2x the file size (one copy of the
# weights, not two).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build}
MODEL=${2:-$ROOT/build/test-models/vgg19.onnx}
RUNS=${RUNS:-3}
PY=${PYTHON:-/usr/bin/python3}
PZ="$B/paleozoic"

[ -x "$PZ" ] || { echo "bench/load: $PZ is not built (make)"; exit 1; }
if [ ! -x /usr/bin/time ]; then
    echo "bench/load: /usr/bin/time is missing: apt-get install -y time"
    exit 1
fi
if [ ! -f "$MODEL" ]; then
    echo "bench/load: exporting vgg19 into $(dirname "$MODEL")"
    "$PY" "$ROOT/tools/export_torchvision.py" "$(dirname "$MODEL")" vgg19 || exit 1
fi

size=$(stat -c %s "$MODEL")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# warm the page cache so that the runs measure the loader, not the disk
cat "$MODEL" >/dev/null

# floating-point arithmetic: calc 'EXPR' prints its value
calc() { awk "BEGIN { print $1 }"; }

printf 'model: %s, %.1f MB\n' "$MODEL" "$(calc "$size / 1e6")"
times=""
peak=0
i=1
while [ "$i" -le "$RUNS" ]; do
    if ! /usr/bin/time -v "$PZ" inspect "$MODEL" >/dev/null 2>"$log"; then
        echo "bench/load: inspect failed:"
        grep -v '^\s' "$log" | head -5
        exit 1
    fi
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
           awk -F: '{ s = 0; for (k = 1; k <= NF; k++) s = s * 60 + $k; print s }')
    rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    printf 'run %d: %.2f s, peak RSS %.1f MB (%.2fx the file)\n' "$i" "$wall" \
        "$(calc "$rss_kb * 1024 / 1e6")" "$(calc "$rss_kb * 1024 / $size")"
    times="$times $wall"
    [ "$rss_kb" -gt "$peak" ] && peak=$rss_kb
    i=$((i + 1))
done
# shellcheck disable=SC2086 # one number per line
median=$(printf '%s\n' $times | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
ratio=$(calc "$peak * 1024 / $size")
printf 'load: file %.1f MB, median %.2f s, peak RSS %.1f MB, RSS/file %.2f (goal: < 3 s, < 2.00)\n' \
    "$(calc "$size / 1e6")" "$median" "$(calc "$peak * 1024 / 1e6")" "$ratio"
ok=$(calc "($median < 3 && $ratio < 2) ? 1 : 0")
if [ "$ok" -eq 1 ]; then
    echo "load: goal met"
else
    echo "load: goal NOT met"
    exit 1
fi
