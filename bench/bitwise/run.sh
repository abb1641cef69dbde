#!/bin/sh
# bench/bitwise/run.sh OLD_PALEOZOIC NEW_PALEOZOIC [MODELS_DIR]
# The six networks through two builds of paleozoic, at 1 and 2 threads,
# fused (fuse-all) and unfused (none), on the AVX-512, AVX2 and scalar paths:
# every output must be bitwise identical. A refactor's proof that it changed
# no arithmetic. Prints one line per case and a summary; exit 1 on a diff.
set -u
old=$1 new=$2 models=${3:-build/test-models}
tmp=$(mktemp -d) ; trap 'rm -rf "$tmp"' EXIT
nets=${NETS:-"resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"}
isas=${ISAS:-"avx512 avx2 scalar"}
same=0 diff=0
for net in $nets; do
  m=$models/$net.onnx in=$models/$net.input.pb
  [ -f "$m" ] || { echo "missing $m (run tests/models.sh)"; exit 2; }
  for isa in $isas; do for t in 1 2; do for s in none fuse-all; do
    for side in old new; do
      eval exe=\$$side
      PZ_ISA=$isa "$exe" run "$m" --input "$in" --output "$tmp/$side.pb" \
        --threads $t --strategy $s >/dev/null 2>"$tmp/$side.err" ||
        { echo "FAIL $side $net $isa t$t $s: $(tail -1 "$tmp/$side.err")"; exit 1; }
    done
    if cmp -s "$tmp/old.pb" "$tmp/new.pb"; then same=$((same+1)); r=same
    else diff=$((diff+1)); r=DIFFERENT; fi
    echo "$net $isa threads=$t strategy=$s: $r"
  done; done; done
done
echo "bitwise: $same same, $diff different"
[ $diff -eq 0 ]
