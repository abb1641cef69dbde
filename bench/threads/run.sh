#!/bin/sh
# bench/threads/run.sh [BUILD_DIR] [ROUNDS] - the default thread count (issue 38, item 4).
#
# The zoo's ResNet-50 built twice: A with a plain `paleozoic build` (no
# --threads: planned for every online core, every block at MP ALL) and B with
# `--threads 2`; both run as `EXE --threads 2 --repeat 10`, alternating A and B
# round by round (ROUNDS each, default 7). C, for reference, is what a plain
# build was before: every block at a fixed MP 1 (`--strategy none`), run the
# same way. Prints each round's medians, the median of the round medians per
# variant and A/B; goal: A within 10% of B.
# Also checks that A and B give the same bits at --threads 2.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build}
ROUNDS=${2:-7}
PZ="$B/paleozoic"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PZ" zoo resnet50 -o "$T/resnet50.onnx" >/dev/null
"$PZ" build "$T/resnet50.onnx" -o "$T/plain" 2>/dev/null
"$PZ" build "$T/resnet50.onnx" -o "$T/t2" --threads 2 2>/dev/null
"$PZ" build "$T/resnet50.onnx" -o "$T/mp1" --strategy none 2>/dev/null
"$T/plain" --threads 2 --output "$T/a.pb" 2>/dev/null
"$T/t2" --threads 2 --output "$T/b.pb" 2>/dev/null
cmp -s "$T/a.pb" "$T/b.pb" && echo "bitwise: A and B give the same output at --threads 2" ||
    { echo "bench/threads: error: A and B differ at --threads 2"; exit 1; }
med() { sed -n 's/.*median=\([0-9.]*\).*/\1/p'; }
: >"$T/a"
: >"$T/b"
: >"$T/c"
for r in $(seq 1 "$ROUNDS"); do
    a=$("$T/plain" --threads 2 --repeat 10 2>/dev/null | med)
    b=$("$T/t2" --threads 2 --repeat 10 2>/dev/null | med)
    c=$("$T/mp1" --threads 2 --repeat 10 2>/dev/null | med)
    echo "$a" >>"$T/a"
    echo "$b" >>"$T/b"
    echo "$c" >>"$T/c"
    echo "round $r: A (plain build) $a ms, B (--threads 2 build) $b ms, C (MP 1 blocks) $c ms"
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ma=$(median "$T/a")
mb=$(median "$T/b")
mc=$(median "$T/c")
echo "median of $ROUNDS rounds: A $ma ms, B $mb ms, C $mc ms; A/B $(echo "$ma $mb" | awk '{printf "%.3f", $1 / $2}')"
