#!/bin/sh
# 40-schedule.sh BUILD_DIR MODELDIR - schedule files (issue 5), end to end.
#
#   1. Round trips on ResNet-18 and MobileNetV2: schedules written by hand
#      (tests/parts/schedule_ref.py gen: residual and inverted-residual
#      blocks on 2 cores in bands, everything in one block, random
#      partitions with random MP, split and strip), and schedules written by
#      `paleozoic tune`, run with `paleozoic run --schedule`: the output must
#      be bitwise identical to the default run (fusion and MP do not change
#      the summation order); the default run itself is checked against
#      PyTorch's output (NAME.torch.pb).
#   2. Invalid schedules: each exits 2 with its own message, naming the
#      file:line:col, the block, its layers and the key; no output file.
#   3. `inspect --schedule` (text and --json): the blocks and their
#      redundant MACs, checked against an independent Python recomputation
#      from the ONNX file (schedule_ref.py ref) on ResNet-18 (MP 2 and 4),
#      MobileNetV2 and VGG-16, and against hand-computed ResNet-18 figures.
# Under a sanitizer build (BUILD_DIR with "san" in its name) fewer random
# partitions run (each model run is slow there); the rest is the same.
set -u
NAME=40-schedule
. "$(dirname "$0")/lib.sh"
part_init "$@"

REF="$ROOT/tests/parts/schedule_ref.py"

NRANDOM=6
case "$san" in 1) NRANDOM=2 ;; esac

for n in resnet18 mobilenet_v2 vgg16 alexnet; do
    if [ ! -f "$M/$n.onnx" ] || [ ! -f "$M/$n.input.pb" ]; then
        bad "$M/$n.onnx or its input is missing (tests/models.sh exports them)"
        finish
    fi
done
if ! "$PY" -c 'import onnx, numpy' 2>/dev/null; then
    bad "$PY cannot import onnx and numpy (apt-get install python3-onnx)"
    finish
fi


# layers MODEL: the one-block-per-layer view, the source of names and rows
for n in resnet18 mobilenet_v2 vgg16 alexnet; do
    mkdir -p "$T/$n"
    if ! "$PZ" inspect "$M/$n.onnx" --strategy none --json >"$T/$n/layers.json" 2>"$T/err" ||
       ! "$PY" "$REF" gen "$T/$n/layers.json" "$T/$n" 7 "$NRANDOM" "$n" 2>>"$T/err"; then
        bad "$n: inspect --strategy none --json / schedule_ref.py gen"
        cat "$T/err"
        finish
    fi
done

# ---- 1. round trips ----------------------------------------------------------

# same_as_default MODEL LABEL SCHEDULE [ARGS]: run with the schedule on 2
# threads, compare bitwise with the default output
same_as_default() {
    n=$1 label=$2 s=$3
    shift 3
    rm -f "$T/out.pb"
    if "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/out.pb" --schedule "$s" \
        --threads 2 "$@" >"$T/log" 2>&1 && clean "$T/log" && cmp -s "$T/out.pb" "$T/$n/default.pb"; then
        ok "$n: $label: run --schedule output bitwise identical to the default run"
    else
        bad "$n: $label: run --schedule: exit, sanitizer or output differs from the default run"
        tail -n 5 "$T/log"
    fi
}

for n in resnet18 mobilenet_v2; do
    if ! "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/$n/default.pb" >"$T/log" 2>&1; then
        bad "$n: default run failed"
        tail -n 5 "$T/log"
        continue
    fi
    # the reference point itself against PyTorch
    if "$PY" - "$T/$n/default.pb" "$M/$n.torch.pb" >"$T/log" 2>&1 <<'EOF'
import sys, onnx, numpy as np
from onnx import numpy_helper
a, b = (numpy_helper.to_array(onnx.load_tensor(p)) for p in sys.argv[1:3])
err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)
print("max |ours - torch| / max |torch| = %.3g" % err)
sys.exit(0 if a.shape == b.shape and err < 1e-4 else 1)
EOF
    then ok "$n: default run matches PyTorch ($(cat "$T/log"))"
    else bad "$n: default run differs from PyTorch: $(cat "$T/log")"
    fi
    same_as_default "$n" "residual blocks on 2 cores in bands (groups.json)" "$T/$n/groups.json"
    if [ "$n" = resnet18 ]; then
        same_as_default "$n" "everything in one block on 2 cores (fuse-all.json)" "$T/$n/fuse-all.json"
        k=0
        while [ "$k" -lt "$NRANDOM" ]; do
            same_as_default "$n" "random partition $k" "$T/$n/random-$k.json"
            k=$((k + 1))
        done
    fi
done

# schedules written by `paleozoic tune` (sched_write_file) read back by run
for s in none fixed-mp fuse-all; do
    rm -f "$T/tuned.json"
    if "$PZ" tune "$M/resnet18.onnx" --strategy "$s" --threads 2 -o "$T/tuned.json" >"$T/log" 2>&1 &&
       "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["version"] == 1 and d["blocks"] else 1)' "$T/tuned.json"; then
        ok "resnet18: tune --strategy $s -o wrote a schedule file"
        same_as_default resnet18 "the schedule tune --strategy $s wrote" "$T/tuned.json"
    else
        bad "resnet18: tune --strategy $s -o failed"
        tail -n 3 "$T/log"
    fi
done
# the per-layer algorithm knob ("winograd"): the tuned schedule lists the
# convs that run Winograd; with every list emptied all convs run direct. Both
# must match PyTorch, the profile must show the kernels asked for, and the two
# outputs must differ in their low bits (else the knob did nothing).
if "$PZ" tune "$M/resnet18.onnx" --strategy fixed-mp --threads 2 -o "$T/algo.json" >"$T/log" 2>&1; then
    nw=$("$PY" -c 'import json, sys; print(sum(len(b.get("winograd", [])) for b in json.load(open(sys.argv[1]))["blocks"]))' "$T/algo.json")
    sed 's/"winograd": \[[0-9, ]*\]/"winograd": []/' "$T/algo.json" >"$T/direct.json"
    for s in algo direct; do
        "$PZ" run "$M/resnet18.onnx" --input "$M/resnet18.input.pb" --output "$T/$s.pb" \
            --schedule "$T/$s.json" --threads 2 --profile >"$T/$s.log" 2>&1 || bad "run --schedule $s.json failed"
    done
    if grep -q avx512f /proc/cpuinfo; then
        want=$nw
    else
        want=0   # the Winograd kernel is AVX-512 only: the runtime runs those layers direct
    fi
    got_w=$(grep -c ' winograd$' "$T/algo.log")
    got_d=$(grep -c ' winograd$' "$T/direct.log")
    [ "$nw" -gt 0 ] && [ "$got_w" -eq "$want" ] && [ "$got_d" -eq 0 ] &&
        ok "winograd knob: the profile shows $got_w Winograd convs as the schedule lists ($nw), 0 with every list empty" ||
        bad "winograd knob: $got_w Winograd layers in the profile (schedule lists $nw), $got_d with empty lists"
    for s in algo direct; do
        "$PY" - "$T/$s.pb" "$M/resnet18.torch.pb" >"$T/log" 2>&1 <<'EOF'
import sys, onnx, numpy as np
from onnx import numpy_helper
a, b = (numpy_helper.to_array(onnx.load_tensor(p)) for p in sys.argv[1:3])
err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)
print("%.3g" % err)
sys.exit(0 if a.shape == b.shape and err < 1e-4 else 1)
EOF
        [ $? -eq 0 ] && ok "winograd knob ($s.json): matches PyTorch (rel err $(cat "$T/log"))" ||
            bad "winograd knob ($s.json): differs from PyTorch: $(cat "$T/log")"
    done
    if [ "$want" -gt 0 ]; then
        cmp -s "$T/algo.pb" "$T/direct.pb" && bad "winograd knob: direct and Winograd outputs are bitwise equal" ||
            ok "winograd knob: direct and Winograd outputs differ in their rounding, as they should"
    fi
else
    bad "tune --strategy fixed-mp for the winograd knob failed"
    tail -n 3 "$T/log"
fi

ls "$T"/tuned.json.tmp* >/dev/null 2>&1 && bad "tune left a temporary file" || ok "tune left no temporary file"

# ---- 2. invalid schedules ----------------------------------------------------

N=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["blocks"]))' "$T/resnet18/layers.json")
LAST=$((N - 1))
info() { "$PY" -c "import json, sys; b = json.load(open(sys.argv[1]))['blocks']; $1" "$T/resnet18/layers.json"; }
FIRST_NAME=$(info 'print(b[0]["layers"][0]["name"])')
LAST_NAME=$(info 'print(b[-1]["layers"][0]["name"])')
LAST_OP=$(info 'print(b[-1]["layers"][0]["op"])')
NRL=$(info 'i = [k for k, x in enumerate(b) if not x["row_local"]][0]; print(i)')
NRL_NAME=$(info "print(b[$NRL]['layers'][0]['name'])")

# rejects LABEL WANT [ARGS]: run with $T/bad.json must exit 2, print WANT, write nothing
rejects() {
    label=$1 want=$2
    shift 2
    rm -f "$T/never.pb"
    "$PZ" run "$M/resnet18.onnx" --input "$M/resnet18.input.pb" --output "$T/never.pb" \
        --schedule "$T/bad.json" --threads 2 "$@" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q -F -- "$want" "$T/log" && [ ! -e "$T/never.pb" ] && clean "$T/log"; then
        ok "rejects $label: $(grep 'error' "$T/log" | head -n 1)"
    else
        bad "rejects $label: exit $rc, wanted 2 and: $want"
        tail -n 3 "$T/log"
    fi
}
one_block() { printf '{"layers": %d, "blocks": [{"first": 0, "count": %d, %s}]}\n' "$N" "$N" "$1" >"$T/bad.json"; }
two_blocks() { printf '{"blocks": [\n  {"first": 0, "count": 4, "mp": 1},\n  {"first": %d, "count": %d, %s}\n]}\n' "$1" "$2" "$3" >"$T/bad.json"; }

printf '{"blocks": [\n  {"first": 0, "count": %d, "mp": 1},\n]}\n' "$N" >"$T/bad.json"
rejects "a trailing comma" "$T/bad.json:3:1: trailing comma before ']'"
text=$(printf '{"blocks": [{"first": 0, "count": %d, "mp": 1}]' "$N")
printf '%s' "$text" >"$T/bad.json"
rejects "an unclosed object" "bad.json:1:$((${#text} + 1)): expected ',' or '}' after an object member, found the end of the file"
printf '\n\n   {"blocks": [{"first": 0, "count": %d, "mp": 1,\n "MP": 2}]}' "$N" >"$T/bad.json"
rejects "an unknown key" "bad.json:4:2: block 0 (layers 0 to $LAST): unknown key \"MP\" (known: first, count, first_node, last_node, mp, split, strip, precision, weights, winograd, sparsity, layer_precision)"
printf '{"blocks": [{"first": 0, "count": %d}]}' "$N" >"$T/bad.json"
rejects "a missing key" "bad.json:1:13: block 0: missing key \"mp\""
two_blocks 2 $((N - 2)) '"mp": 1'
rejects "overlapping blocks" "bad.json:3:3: block 1 (layers 2 to $((N - 1))): overlaps block 0 (layers 0 to 3): block 1 should start at layer 4"
two_blocks 6 $((N - 6)) '"mp": 1'
rejects "a gap between blocks" "bad.json:3:3: block 1 (layers 6 to $LAST): layers 4 to 5 are in no block"
two_blocks 4 $((N - 5)) '"mp": 1'
rejects "a missing last layer" "the blocks cover layers 0 to $((N - 2)); the model has $N layers, so layers $LAST to $LAST are in no block"
printf '{"layers": %d, "blocks": [{"first": 0, "count": %d, "mp": 1}]}' $((N + 3)) $((N + 3)) >"$T/bad.json"
rejects "the layer count of another model" "bad.json: the schedule is for a model of $((N + 3)) layers; this model"
cp "$T/alexnet/groups.json" "$T/bad.json"
rejects "AlexNet's schedule" "the schedule is for a model of"
two_blocks 4 $((N - 4)) '"mp": 3'
rejects "MP above the cores" "bad.json:3:3: block 1 (layers 4 to $LAST, \"$(info 'print(b[4]["layers"][0]["name"])')\" to \"$LAST_NAME\"): key \"mp\": 3 is out of range: MP is 1 to 2"
one_block '"mp": 0'
rejects "MP 0" "block 0 (layers 0 to $LAST): key \"mp\": 0 is out of range (at least 1)"
one_block '"mp": 1, "strip": -1'
rejects "a negative strip" "key \"strip\": -1 is out of range (at least 0)"
one_block '"mp": 1, "strip": 4'
rejects "a strip on a block ending in $LAST_OP" "key \"strip\": 4 rows, but the block's last layer \"$LAST_NAME\" ($LAST_OP) has no rows"
one_block '"mp": 2, "split": "bands"'
rejects "bands over a layer that is not row-local" "key \"split\": \"bands\" needs row-local layers, and layer $NRL \"$NRL_NAME\" is not"
two_blocks 4 $((N - 4)) '"mp": 1, "split": "rows"'
rejects "an unknown split" "key \"split\": \"rows\" is not one of \"auto\", \"bands\", \"channels\""
# "int8" per block: its Gemm with constant weights runs the int8 kernel
# (activations quantized at run time), within 5e-2 of the fp32 output
one_block '"mp": 1, "precision": "int8"'
if "$PZ" run "$M/resnet18.onnx" --input "$M/resnet18.input.pb" --output "$T/i8.pb" \
    --schedule "$T/bad.json" --threads 2 --profile >"$T/log" 2>&1 &&
    grep -q ' GEMM .* int8-dyn' "$T/log"; then
    check "a block of precision int8: near fp32" node "$E2E/compare.js" --rel 5e-2 "$T/i8.pb" "$M/resnet18.torch.pb"
else
    bad "a block of precision int8: $(tail -c 300 "$T/log")"
fi
one_block '"mp": 1, "precision": "fp64"'
rejects "an unknown precision" "key \"precision\": \"fp64\" is not one of \"fp32\", \"bf16\", \"int8\""
one_block '"mp": 1, "winograd": [0]'
rejects "Winograd on the 7x7 stem" "key \"winograd\": layer 0 \"$FIRST_NAME\" (Conv) cannot run Winograd F(4x4, 3x3)"
one_block '"mp": 1, "winograd": [2, 2]'
rejects "a layer listed twice in winograd" "key \"winograd\": layer 2 is listed twice"
two_blocks 4 $((N - 4)) '"mp": 1, "winograd": [2]'
rejects "a winograd layer outside its block" "key \"winograd\": 2 is out of range (4 to $LAST)"
one_block '"mp": 1, "winograd": 2'
rejects "winograd not an array" "key \"winograd\": expected an array of layer numbers, found a number"
one_block '"mp": 1, "first_node": "conv0"'
rejects "a wrong node name" "key \"first_node\": the file says \"conv0\", but layer 0 is \"$FIRST_NAME\""
one_block '"mp": "2"'
rejects "a string for a number" "key \"mp\": expected an integer, found a string"
one_block '"mp": 1.5'
rejects "a fraction" "key \"mp\": expected an integer, found 1.5"
printf '{"version": 2, "blocks": []}' >"$T/bad.json"
rejects "version 2" "key \"version\": 2 is out of range (1 to 1)"
printf '' >"$T/bad.json"
rejects "an empty file" "bad.json:1:1: the file is empty"
printf '\177ELF\002\001\001\000\000' >"$T/bad.json"
rejects "a binary file" "bad.json:1:1: expected a value"
"$PY" -c 'import sys; sys.stdout.write("[" * 100000)' >"$T/bad.json"
rejects "100000 nested arrays" "bad.json:1:65: nesting deeper than 64 levels"
printf '[]' >"$T/bad.json"
rejects "an array" "bad.json:1:1: a schedule is a JSON object, found an array"
cp "$T/resnet18/groups.json" "$T/bad.json"
rejects "--schedule with --strategy" "give --schedule or --strategy, not both" --strategy none
rm -f "$T/bad.json"
rejects "a missing file" "cannot open schedule $T/bad.json"
mkdir "$T/bad.json"
rejects "a folder" "schedule $T/bad.json is not a regular file"
rmdir "$T/bad.json"

# ---- 3. inspect --schedule ---------------------------------------------------

# ResNet-18's basic blocks on 2 cores in bands, by hand (AVX-512): layer1.0
# (56 rows, both convs Winograd, computed by whole rows of 4x4 tiles: bands
# [0, 28) and [28, 56) of conv2 need conv1 rows [0, 29) and [27, 56), whole
# tile rows [0, 32) and [24, 56)) computes 8 rows of conv1 twice,
# 8 * 115605504 / 56 = 16515072 MACs, 7.14% of the block's 231211008;
# layer4.1 (7 rows, direct, computed by pairs of rows: bands [0, 4) and
# [4, 7) of conv2 need conv1 rows [0, 6) and [2, 7)): 4 rows twice,
# 4 * 115605504 / 7 = 66060288, 28.57%. In all 243597312: 8 rows in each of
# the four Winograd blocks, 2 in layer2.0's and layer3.0's, 4 in layer4's two.
if "$PZ" inspect "$M/resnet18.onnx" --schedule "$T/resnet18/groups.json" --threads 2 >"$T/insp" 2>&1; then
    grep -q -E "^ +[0-9]+ +[0-9]+-[0-9]+ +2 +bands +0 +fp32 +fp32 +[0-9]+ +16515072 +7\.14  /layer1/layer1\.0/conv1/Conv -> " "$T/insp" &&
    grep -q -E " 66060288 +28\.57  /layer4/layer4\.1/conv1/Conv -> " "$T/insp" &&
    grep -q -E "^total: [0-9]+ blocks, 1\.81[0-9]* GMACs, redundant 0\.2436 GMACs \(243597312 MACs, 13\.43%\)" "$T/insp" &&
        ok "inspect --schedule: ResNet-18 basic blocks at MP 2: redundant MACs as computed by hand" ||
        { bad "inspect --schedule: ResNet-18 table"; cat "$T/insp"; }
else
    bad "inspect --schedule failed"
    cat "$T/insp"
fi

# ref MODEL LABEL SCHEDULE [ARGS]: inspect --json against the Python reference,
# which takes the convs that run Winograd from the profile of a default run
# (the schedules leave the algorithm to the runtime's rule, as it does)
ref() {
    n=$1 label=$2 s=$3
    shift 3
    [ -f "$T/$n/kernels.log" ] ||
        "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/$n/k.pb" --profile \
            >"$T/$n/kernels.log" 2>&1 || bad "$n: run --profile for the kernels failed"
    if "$PZ" inspect "$M/$n.onnx" --schedule "$s" --json "$@" >"$T/blocks.json" 2>"$T/log" &&
       "$PY" "$REF" ref "$M/$n.onnx" "$T/blocks.json" "$T/$n/kernels.log" >"$T/reflog" 2>&1; then
        ok "$n: $label: redundant MACs of $(grep -c '^ok' "$T/reflog") blocks match the Python reference"
    else
        bad "$n: $label: inspect --json or the reference disagrees"
        grep -v '^ok' "$T/reflog" "$T/log" | head -n 8
    fi
}
ref resnet18 "basic blocks at MP 2" "$T/resnet18/groups.json" --threads 2
sed 's/"mp": 2/"mp": 4/' "$T/resnet18/groups.json" >"$T/mp4.json"
ref resnet18 "basic blocks at MP 4" "$T/mp4.json" --threads 4
ref mobilenet_v2 "inverted residual blocks at MP 2" "$T/mobilenet_v2/groups.json" --threads 2
ref vgg16 "conv1_1..relu1_2 at MP 2" "$T/vgg16/groups.json" --threads 2
for n in resnet18 mobilenet_v2 vgg16; do
    ref "$n" "random partitions" "$T/$n/random-0.json" --threads 2
done
# an MP above the machine is fine for inspect when --threads says so
"$PZ" inspect "$M/resnet18.onnx" --schedule "$T/mp4.json" --threads 2 >"$T/log" 2>&1
[ $? -eq 2 ] && grep -q 'MP is 1 to 2' "$T/log" && ok "inspect checks MP against --threads" ||
    bad "inspect --threads 2 accepted MP 4"

finish
