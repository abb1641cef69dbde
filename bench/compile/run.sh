#!/bin/sh
# bench/compile/run.sh [BUILD_DIR] [MODELDIR] - how long `paleozoic build`
# takes on VGG-19 (load, passes, plan, NAME.c + 548 MB of NAME.weights, cc)
# and its peak memory (maximum resident set, /usr/bin/time -v; the cc child is
# measured apart, it is not counted in paleozoic's RSS). Goal: under 60 s and
# under 2 GB. Also `compile` alone, and the lines of code of both emissions.
# Prints one line per measurement; exits 1 if a goal is missed.
set -u
B=${1:-build}
M=${2:-models}
PZ="$B/paleozoic"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$PZ" ] || { echo "bench/compile: $PZ is not built"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/compile: /usr/bin/time is missing (apt-get install time)"; exit 1; }
model="$M/vgg19.onnx"
if [ ! -f "$model" ]; then
    "$PZ" zoo vgg19 -o "$T/vgg19.onnx" >/dev/null || exit 1
    model="$T/vgg19.onnx"
fi
status=0
# measure LABEL CMD...: wall seconds and peak RSS of CMD
measure() {
    label=$1
    shift
    if ! /usr/bin/time -v "$@" >"$T/out" 2>"$T/time"; then
        echo "bench/compile: $label failed:"
        tail -n 5 "$T/out" "$T/time"
        exit 1
    fi
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")
    printf '%-32s wall %7.2f s   peak RSS %7.1f MB\n' "$label" "$wall" "$(echo "$rss" | awk '{ print $1 / 1024 }')"
}
measure "compile vgg19" "$PZ" compile "$model" -o "$T/src"
measure "build vgg19 (compile + cc)" "$PZ" build "$model" -o "$T/vgg19"
build_wall=$wall build_rss=$rss
measure "  of which cc alone" make -s -B -C "$T/src"
"$PZ" compile "$model" --loc
ls -l "$T/vgg19" "$T/vgg19.weights" | awk '{ printf "  %s: %.1f MB\n", $NF, $5 / 1e6 }'
if awk "BEGIN { exit !($build_wall < 60) }"; then echo "goal: build under 60 s: met ($build_wall s)"
else echo "goal: build under 60 s: MISSED ($build_wall s)"; status=1; fi
if [ "$build_rss" -lt 2097152 ]; then echo "goal: build under 2 GB peak: met ($((build_rss / 1024)) MB)"
else echo "goal: build under 2 GB peak: MISSED ($((build_rss / 1024)) MB)"; status=1; fi
exit $status
