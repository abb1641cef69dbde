#!/bin/sh
# bench/concat/run.sh BUILD_DIR ROUNDS REPEAT MODEL.onnx IN.pb[,IN2.pb..] [THREADS] - the
# concatenation knob on one model: ROUNDS rounds, each `paleozoic run --repeat
# REPEAT --threads THREADS` with --concat off then on (interleaved, so that the
# machine's load falls on both alike); prints each round's two medians, then
# the median of each column and on/off, and the least run of each (the figure the
# machine's other load disturbs least). Also checks the outputs bitwise equal.
set -eu
B=${1:?usage: run.sh BUILD_DIR ROUNDS REPEAT MODEL.onnx IN.pb [THREADS]}
R=${2:?} N=${3:?} M=${4:?} X=${5:?} TH=${6:-1}
ins=$(echo "$X" | sed 's/,/ --input /g')
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for r in $(seq "$R"); do
    for c in off on; do
        # shellcheck disable=SC2086
        "$B/paleozoic" run "$M" --input $ins --output "$T/$c.pb" --threads "$TH" --repeat "$N" \
            --concat "$c" >"$T/line"
        sed -n 's/.*median=\([0-9.]*\).*/\1/p' "$T/line" >>"$T/$c.ms"
        sed -n 's/.*min=\([0-9.]*\).*/\1/p' "$T/line" >>"$T/$c.min"
    done
    echo "round $r: off $(tail -1 "$T/off.ms") ms, on $(tail -1 "$T/on.ms") ms"
done
cmp -s "$T/off.pb" "$T/on.pb" && echo "outputs: bitwise equal" || echo "outputs: DIFFER"
med() { sort -n "$1" | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
off=$(med "$T/off.ms") on=$(med "$T/on.ms")
echo "median of $R rounds x $N runs, $TH thread(s): off $off ms, on $on ms, on/off $(awk "BEGIN {printf \"%.3f\", $on / $off}")"
loff=$(sort -n "$T/off.min" | head -1) lon=$(sort -n "$T/on.min" | head -1)
echo "least run: off $loff ms, on $lon ms, on/off $(awk "BEGIN {printf \"%.3f\", $lon / $loff}")"
