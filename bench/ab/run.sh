#!/bin/sh
# bench/ab/run.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS] [REPEAT] - two builds of
# paleozoic, side by side: each of the six networks built by both (`paleozoic
# build`, the default strategy), then ROUNDS rounds (default 5) that run the
# old and the new executable alternately (`EXE --repeat REPEAT --threads T`,
# default 10 runs) at 1 and 2 threads. Prints per network and thread count the
# median of the round medians of each and new/old, then the geomean of the
# ratios. A refactor's proof that speed stayed within noise.
# Env: NETS (default the six), THREADS (default "1 2"), MODELS (build/test-models).
set -eu
old=$1 new=$2 rounds=${3:-5} rep=${4:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
models=${MODELS:-$ROOT/build/test-models}
nets=${NETS:-"resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"}
threads=${THREADS:-"1 2"}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for n in $nets; do
  for side in old new; do
    eval b=\$$side
    "$b/paleozoic" build "$models/$n.onnx" -o "$T/$n.$side" >/dev/null 2>&1 ||
      { echo "bench/ab: error: $side build of $n failed" >&2; exit 1; }
  done
done
med() { sed -n 's/.*median=\([0-9.]*\).*/\1/p'; }
for t in $threads; do
  for n in $nets; do
    : >"$T/o"; : >"$T/n"
    r=0
    while [ $r -lt "$rounds" ]; do
      "$T/$n.old" --input "$models/$n.input.pb" --repeat "$rep" --threads "$t" 2>&1 | med >>"$T/o"
      "$T/$n.new" --input "$models/$n.input.pb" --repeat "$rep" --threads "$t" 2>&1 | med >>"$T/n"
      r=$((r + 1))
    done
    mo=$(sort -n "$T/o" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    mn=$(sort -n "$T/n" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    echo "$t $n $mo $mn" >>"$T/all"
    printf '%-14s threads=%s old %8.3f ms  new %8.3f ms  new/old %.3f\n' "$n" "$t" "$mo" "$mn" \
      "$(echo "$mn $mo" | awk '{print $1/$2}')"
  done
done
awk '{s += log($4/$3); k++} END {printf "geomean new/old over %d cases: %.3f\n", k, exp(s/k)}' "$T/all"
