#!/bin/sh
# shellcheck disable=SC2046,SC2086  # the --input/--output lists split into words on purpose
# 43-concat.sh BUILD_DIR [MODELDIR] - the concatenation knob (issue 43 item 3):
# layers that read one input run as one, weights concatenated along N, then
# a Split (src/passes/concat_layers.c). Models written by
# tests/concat/concat_models.py with seeded weights: a Q/K/V encoder layer
# (three MatMuls), the same projections as Gemms at 5 rows and at 1 (GEMV),
# `mixed` (the groups the pass must form and the convs it must leave alone),
# `branches` (1x1 branches read by Concats: a Split that copies only the parts in
# concats, one placed around a concat's last part: rt/inplace.c),
# `hand` (opset 11, Gemm with transB 0, MatMul and Conv without bias, the
# members' outputs graph outputs; a Gemm with alpha 0.5 and a grouped conv
# left alone), torchvision GoogLeNet and Inception-v3 (10 Splits in place).
#   equal   --concat on bitwise equal to off: `run` at 1 and 2 threads, with
#           PZ_ISA=scalar (the small models), and the program `build` makes
#           against `run` on; on within 1e-4 of ONNX Runtime
#           (also the --emit raw program, --precision bf16's GEMMs, and
#           GoogLeNet in fused F-Blocks: fuse-all, dlfusion and a block in bands at
#           2 threads, its 9 Concats and 9 Splits in place there too, bitwise the
#           unfused run; Inception-v3 in one fused block likewise; and at --batch 2)
#   shows   inspect --strategy none --concat on: the merged layers the model
#           must have, each with its branches; off: none; the profile's
#           SPLIT layers, Splits in place, the Q/K/V Split gone into the
#           attention layer (it reads its parts in place); the generated C's
#           "concatenation" comments
#   knob    a schedule from `tune --concat on` says "concat": true and runs
#           without --concat to the same bits; --concat off against it, a
#           non-boolean "concat", --concat maybe and --concat without a
#           value, and --concat where nothing lowers: exit 2
# Under a sanitizer build (BUILD_DIR with "san" in its name, unless
# PZ_TEST_FULL=1) GoogLeNet and Inception-v3 are left out: the small models cover every form.
# Ends with `N passed, N failed`.
set -u
NAME=43-concat
. "$(dirname "$0")/lib.sh"
part_init "$@"

if ! "$PY" -c 'import torch, torchvision, onnx, numpy' 2>/dev/null ||
    ! command -v node >/dev/null; then
    skip_part "needs /usr/bin/python3 with torch, torchvision, onnx, and node"
fi
GN=googlenet
case "$san" in 1) [ "${PZ_TEST_FULL:-0}" = 1 ] || GN="" ;; esac
"$PY" "$ROOT/tests/concat/concat_models.py" "$T" qkv qkv_gemm gemv mixed branches hand $GN >"$T/names" 2>"$T/log" ||
    bad "concat_models.py: $(tail -c 400 "$T/log")"

# --input for each of model $1's inputs; --output PREFIX.K.pb for its $2 outputs; whether the
# outputs of two prefixes are bitwise equal (compare.js: the writers' names may differ)
ins_of() { i=""; for f in "$T/$1".in_*.pb; do i="$i --input $f"; done; echo "$i"; }
outs_of() { o=""; k=0; while [ "$k" -lt "$2" ]; do o="$o --output $1.$k.pb"; k=$((k + 1)); done; echo "$o"; }
files_of() { o=""; k=0; while [ "$k" -lt "$2" ]; do o="$o $1.$k.pb"; k=$((k + 1)); done; echo "$o"; }
same() {   # A B NOUT [--rel TOL]
    k=0
    while [ "$k" -lt "$3" ]; do
        node "$ROOT/tests/e2e/compare.js" ${4:---bitwise} ${5:-} "$1.$k.pb" "$2.$k.pb" >"$T/cmp" 2>&1 ||
            { tail -c 300 "$T/cmp"; return 1; }
        k=$((k + 1))
    done
}

# name, outputs, merged layers inspect must show, their Splits in place (rt/inplace.c: one
# outer row; Gemm's 5 rows copy), Splits gone into an attention layer (Q/K/V read in place:
# passes/qkv_slices.c), ISA runs (scalar too for the small ones)
while read -r m nout want inpl qkv isas; do
    [ -n "$m" ] || continue
    f="$T/$m.onnx" x=$(ins_of "$m")
    # ---- equal: on against off, bitwise, per thread count and ISA
    for th in 1 2; do
        for isa in $isas; do
            pre="" && [ "$isa" = scalar ] && pre="PZ_ISA=scalar"
            if env $pre "$PZ" run "$f" $x $(outs_of "$T/$m.off.$th$isa" "$nout") --threads "$th" \
                --concat off >"$T/log" 2>&1 &&
                env $pre "$PZ" run "$f" $x $(outs_of "$T/$m.on.$th$isa" "$nout") --threads "$th" \
                    --concat on >"$T/log" 2>&1; then
                if same "$T/$m.off.$th$isa" "$T/$m.on.$th$isa" "$nout" >"$T/why"; then ok
                else bad "$m: --concat on differs from off ($th threads, $isa): $(cat "$T/why")"; fi
            else
                bad "$m run ($th threads, $isa): $(tail -c 400 "$T/log")"
            fi
        done
    done
    # ---- against ONNX Runtime
    if node "$ROOT/tests/e2e/ort_run.js" "$f" --threads 1 $(echo "$x" | sed 's/--input //g') -- \
        $(files_of "$T/$m.ort" "$nout") >"$T/log" 2>&1; then
        if same "$T/$m.on.1fast" "$T/$m.ort" "$nout" --rel 1e-4 >"$T/why"; then ok
        else bad "$m: --concat on against ONNX Runtime: $(cat "$T/why")"; fi
    else
        bad "$m: ONNX Runtime: $(tail -c 300 "$T/log")"
    fi
    # ---- the built program, against run
    if "$PZ" build "$f" -o "$T/$m.prog" --threads 1 --concat on >"$T/log" 2>&1 &&
        "$T/$m.prog" $x $(outs_of "$T/$m.prog" "$nout") >"$T/log" 2>&1; then
        if same "$T/$m.prog" "$T/$m.on.1fast" "$nout" >"$T/why"; then ok
        else bad "$m: the built program (--concat on) differs from run: $(cat "$T/why")"; fi
    else
        bad "$m build: $(tail -c 400 "$T/log")"
    fi
    # ---- shows: inspect, the profile, the generated C
    "$PZ" inspect "$f" --strategy none --concat on >"$T/ins" 2>&1
    got=$(sed -n 's/^concat: on, \([0-9]*\) merged layers.*/\1/p' "$T/ins")
    rows=$(grep -c '^  layer [0-9]* [A-Za-z]*, [0-9]* branches: ' "$T/ins")
    if [ "$got" = "$want" ] && [ "$rows" = "$want" ]; then ok
    else bad "$m inspect: '$got' merged layers and $rows listed, want $want: $(grep -A3 '^concat' "$T/ins")"; fi
    # a Q/K/V Split goes altogether: the attention reads its parts in the GEMM's output
    q=$(sed -n 's/^qkv in place: \([0-9]*\) attention layers.*/\1/p' "$T/ins")
    if [ "${q:-x}" = "$qkv" ]; then ok
    else bad "$m inspect: '${q:-no line}' attention layers reading Q, K, V in place, want $qkv"; fi
    "$PZ" inspect "$f" --strategy none --concat off >"$T/ins" 2>&1
    if grep -q '^concat: off, 0 merged layers' "$T/ins" && ! grep -q 'branches:' "$T/ins"; then ok
    else bad "$m inspect --concat off: $(grep '^concat' "$T/ins")"; fi
    "$PZ" run "$f" $x --threads 1 --concat on --profile >"$T/prof" 2>&1
    n=$(grep -c ' SPLIT .*:split ' "$T/prof")
    v=$(sed -n 's/.*, \([0-9]*\) splits in place.*/\1/p' "$T/prof")
    if [ "$((n + ${v:-0} + qkv))" = "$want" ] && [ "${v:-0}" = "$inpl" ]; then ok
    else bad "$m profile: $n concat SPLIT layers and ${v:-0} in place, want $want, $inpl in place"; fi
    rm -rf "$T/gen"
    "$PZ" compile "$f" -o "$T/gen" --threads 1 --concat on >"$T/log" 2>&1
    n=$(cat "$T/gen/"*.c 2>/dev/null | grep -c '; concatenation: [0-9]* layers')
    if [ "$n" = "$want" ] && grep -q 'concatenation (--concat.*): on' "$T/gen/"*.c; then ok
    else bad "$m compile: $n concatenation comments in the C, want $want"; fi
done <<LIST
qkv 1 1 0 1 fast scalar
qkv_gemm 1 1 0 0 fast scalar
gemv 1 1 1 0 fast scalar
mixed 1 2 2 0 fast scalar
branches 1 2 1 0 fast scalar
hand 8 3 1 0 fast scalar
$([ -n "$GN" ] && echo "googlenet 1 9 9 0 fast")
LIST

# ---- fused F-Blocks over the merged convs and their Splits: on against off, bitwise, and
# the Concats and Splits in place inside the fused blocks too (rt/inplace.c: their parts are
# whole tensors there): no CONCAT or SPLIT layer in the profile. fuse-all and dlfusion, and a
# block of every layer before the global pool split in bands (2 threads).
for st in ${GN:+fuse-all dlfusion bands}; do
    for c in off on; do
        how="--strategy $st"
        if [ "$st" = bands ]; then
            nl=$("$PZ" inspect "$T/googlenet.onnx" --strategy none --concat "$c" --json |
                "$PY" -c 'import json,sys; print(json.load(sys.stdin)["layers"])')
            printf '{"layers": %s, "concat": %s, "blocks": [{"first": 0, "count": %s, "mp": 2, "split": "bands"}, {"first": %s, "count": 2, "mp": 2}]}\n' \
                "$nl" "$([ $c = on ] && echo true || echo false)" "$((nl - 2))" "$((nl - 2))" >"$T/bands.$c.json"
            how="--schedule $T/bands.$c.json"
        fi
        # shellcheck disable=SC2086  # $how is words
        "$PZ" run "$T/googlenet.onnx" --input "$T/googlenet.in_0.pb" --output "$T/gf.$c.pb" \
            --threads 2 $how --concat "$c" --profile >"$T/gf.$c.prof" 2>&1 ||
            bad "googlenet $how --concat $c: $(tail -c 300 "$T/gf.$c.prof")"
    done
    if cmp -s "$T/gf.off.pb" "$T/gf.on.pb"; then ok
    else bad "googlenet $st: --concat on differs from off"; fi
    if cmp -s "$T/gf.on.pb" "$T/googlenet.on.1fast.0.pb"; then ok
    else bad "googlenet $st: the fused run differs from the unfused one"; fi
    if grep -q ', 9 concats in place.*, 9 splits in place' "$T/gf.on.prof" &&
        grep -q ', 9 concats in place' "$T/gf.off.prof" &&
        ! grep -q -E '^ +[0-9]+ (CONCAT|SPLIT|COPY) ' "$T/gf.on.prof" "$T/gf.off.prof"; then ok
    else bad "googlenet $st: want 9 concats and 9 splits in place: $(grep '^profile of' "$T/gf.on.prof" | cut -c 1-200)"; fi
done

# ---- --batch 2 (issue 43 item 1): the blocked Split cuts each image's blocks
if [ -n "$GN" ]; then
    "$PY" -c "
import sys, numpy as np
from onnx import numpy_helper
x = np.random.default_rng(2).standard_normal((2, 3, 224, 224)).astype(np.float32)
open(sys.argv[1], 'wb').write(numpy_helper.from_array(x, 'x').SerializeToString())" "$T/gn2.pb"
    for c in off on; do
        "$PZ" run "$T/googlenet.onnx" --input "$T/gn2.pb" --batch 2 --output "$T/gb.$c.pb" \
            --threads 1 --concat "$c" >"$T/log" 2>&1 || bad "googlenet --batch 2 --concat $c: $(tail -c 300 "$T/log")"
    done
    if cmp -s "$T/gb.off.pb" "$T/gb.on.pb"; then ok
    else bad "googlenet --batch 2: --concat on differs from off"; fi
fi

# ---- Inception-v3 (issue 43's must-show): on bitwise equal to off, every Split in place, on
# within 1e-4 of ONNX Runtime; the merged layers against their members, interleaved, printed
# (layer times on a shared host are not asserted)
if [ -n "$GN" ]; then
    if "$PY" "$ROOT/tests/concat/concat_models.py" "$T" inception_v3 >"$T/log" 2>&1; then
        f="$T/inception_v3.onnx" x="$T/inception_v3.in_0.pb"
        for c in off on; do
            "$PZ" run "$f" --input "$x" --output "$T/iv3.$c.pb" --threads 2 --concat "$c" \
                --profile >"$T/iv3.$c.prof" 2>&1 || bad "inception_v3 --concat $c: $(tail -c 300 "$T/iv3.$c.prof")"
        done
        if cmp -s "$T/iv3.off.pb" "$T/iv3.on.pb"; then ok
        else bad "inception_v3: --concat on differs from off"; fi
        if grep -q ', 10 splits in place' "$T/iv3.on.prof" && ! grep -q ' SPLIT ' "$T/iv3.on.prof"; then ok
        else bad "inception_v3: want its 10 Splits in place: $(sed -n 2p "$T/iv3.on.prof")"; fi
        # in one fused block (fuse-all) too: every producer (convs, pools, the merged convs)
        # writes into its slice of the module's concat, no copy layer; bitwise the unfused run
        "$PZ" run "$f" --input "$x" --output "$T/iv3.fa.pb" --threads 2 --concat on \
            --strategy fuse-all --profile >"$T/iv3.fa.prof" 2>&1 || bad "inception_v3 fuse-all: $(tail -c 300 "$T/iv3.fa.prof")"
        if cmp -s "$T/iv3.fa.pb" "$T/iv3.off.pb" && grep -q ', 11 concats in place.*, 10 splits in place' "$T/iv3.fa.prof" &&
            ! grep -q -E '^ +[0-9]+ (CONCAT|SPLIT|COPY) ' "$T/iv3.fa.prof"; then ok
        else bad "inception_v3 fuse-all --concat on: bitwise off and 11 + 10 in place? $(head -1 "$T/iv3.fa.prof" | cut -c 1-200)"; fi
        if node "$ROOT/tests/e2e/ort_run.js" "$f" --threads 1 "$x" -- "$T/iv3.ort.pb" >"$T/log" 2>&1 &&
            node "$ROOT/tests/e2e/compare.js" --rel 1e-4 "$T/iv3.on.pb" "$T/iv3.ort.pb" >"$T/log" 2>&1; then ok
        else bad "inception_v3 --concat on against ONNX Runtime: $(tail -c 300 "$T/log")"; fi
        "$PY" "$ROOT/bench/concat/layers.py" "$PZ" "$f" "$x" 2 1 2>&1 | tail -1 | sed 's/^/43-concat: inception_v3, 1 thread: /'
    else
        bad "concat_models.py inception_v3: $(tail -c 300 "$T/log")"
    fi
fi

# ---- knob: the low-level C (--emit raw), and bf16 GEMMs
f="$T/qkv.onnx" x="$T/qkv.in_0.pb"
if "$PZ" build "$f" -o "$T/raw.prog" --emit raw --threads 1 --concat on >"$T/log" 2>&1 &&
    "$T/raw.prog" --input "$x" --output "$T/raw.pb" >"$T/log" 2>&1 &&
    node "$ROOT/tests/e2e/compare.js" --bitwise "$T/raw.pb" "$T/qkv.on.1fast.0.pb" >"$T/log" 2>&1; then ok
else bad "build --emit raw --concat on: $(tail -c 300 "$T/log")"; fi
for m in qkv qkv_gemm; do
    for c in off on; do
        "$PZ" run "$T/$m.onnx" --input "$T/$m.in_0.pb" --output "$T/$m.bf16.$c.pb" --threads 1 \
            --precision bf16 --concat $c >"$T/log" 2>&1 || bad "$m bf16 --concat $c: $(tail -c 300 "$T/log")"
    done
    if cmp -s "$T/$m.bf16.off.pb" "$T/$m.bf16.on.pb"; then ok
    else bad "$m: --precision bf16 --concat on differs from off"; fi
done

# ---- knob: schedules and refusals
if "$PZ" tune "$f" --strategy none --concat on -o "$T/s.json" >"$T/log" 2>&1 &&
    grep -q '"concat": true' "$T/s.json" &&
    "$PZ" run "$f" --input "$x" --output "$T/s.pb" --threads 1 --schedule "$T/s.json" >"$T/log" 2>&1 &&
    node "$ROOT/tests/e2e/compare.js" --bitwise "$T/s.pb" "$T/qkv.on.1fast.0.pb" >"$T/log" 2>&1; then ok
else bad "schedule with \"concat\": true: $(tail -c 300 "$T/log")"; fi
# ---- --concat auto, and `best` without --concat: both variants timed on this machine, the
# choice said on stderr ("concat auto: N merged layers ...: on|off"), kept by inspect and by
# tune's schedule, and the outputs those of --concat off (the merged layers are the same bits)
for m in branches qkv; do
    if "$PZ" run "$T/$m.onnx" --input "$T/$m.in_0.pb" --output "$T/$m.auto.pb" --threads 1 \
        --concat auto >"$T/out" 2>"$T/log"; then
        pick=$(sed -n 's/^concat auto: [0-9]* merged layers (from [0-9]*);.*: \(on\|off\)$/\1/p' "$T/log")
        if [ -n "$pick" ] && cmp -s "$T/$m.auto.pb" "$T/$m.off.1fast.0.pb"; then ok
        else bad "$m --concat auto: choice '${pick:-none said}', or the output differs from off: $(tail -c 300 "$T/log")"; fi
    else
        bad "$m --concat auto: $(tail -c 300 "$T/log")"
    fi
    "$PZ" inspect "$T/$m.onnx" --strategy none --concat auto >"$T/ins" 2>"$T/log"
    pick=$(sed -n 's/^concat auto: .*: \(on\|off\)$/\1/p' "$T/log")
    if [ -n "$pick" ] && grep -q "^concat: $pick, " "$T/ins"; then ok
    else bad "$m inspect --concat auto: said '${pick:-nothing}', shows '$(grep '^concat' "$T/ins")'"; fi
    "$PZ" tune "$T/$m.onnx" --strategy best:budget=5,quiet=1 --threads 1 -o "$T/best.json" >"$T/out" 2>"$T/log"
    pick=$(sed -n 's/^concat auto: .*: \(on\|off\)$/\1/p' "$T/log")
    want=false && [ "$pick" = on ] && want=true
    if [ -n "$pick" ] && grep -q "\"concat\": $want" "$T/best.json"; then ok
    else bad "$m tune --strategy best: said '${pick:-nothing}', the schedule has $(grep -o '"concat": [a-z]*' "$T/best.json" 2>/dev/null)"; fi
done
# nothing to merge: off, and nothing timed
"$PZ" inspect "$M/resnet18.onnx" --strategy none --concat auto >"$T/ins" 2>"$T/log"
if grep -q '^concat auto: the concatenation pass merges nothing here: off' "$T/log" &&
    grep -q '^concat: off, 0 merged layers' "$T/ins"; then ok
else bad "resnet18 --concat auto: $(cat "$T/log") / $(grep '^concat' "$T/ins")"; fi
refuse() {   # WHAT WANT-IN-MESSAGE CMD...
    what=$1 msg=$2
    shift 2
    "$@" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" = 2 ] && grep -q "paleozoic: error: .*$msg" "$T/log"; then ok
    else bad "$what: exit $rc, want 2 with '$msg': $(tail -c 300 "$T/log")"; fi
}
refuse "--concat off against a concat schedule" "layer" \
    "$PZ" run "$f" --input "$x" --threads 1 --schedule "$T/s.json" --concat off
sed 's/"concat": true/"concat": "yes"/' "$T/s.json" >"$T/bad.json"
refuse "\"concat\": \"yes\"" 'key "concat": expected true or false' \
    "$PZ" run "$f" --input "$x" --threads 1 --schedule "$T/bad.json"
refuse "--concat maybe" "--concat maybe: expected on, off or auto" "$PZ" run "$f" --input "$x" --concat maybe
refuse "--concat without a value" "--concat needs a value" "$PZ" run "$f" --input "$x" --concat
refuse "inspect --concat without blocks" "--concat does nothing here" "$PZ" inspect "$f" --concat on
refuse "space --layers --concat" "--concat does nothing here" "$PZ" space --layers 3 --concat on
# space counts the layers the pass leaves: GoogLeNet's 9 groups of 23 convs are 9 convs and 9
# Splits, 5 layers fewer
if [ -n "$GN" ]; then
    n_off=$("$PZ" space "$T/googlenet.onnx" --concat off --cores 1 | sed -n 's/.*: \([0-9]*\) layers after lowering/\1/p')
    n_on=$("$PZ" space "$T/googlenet.onnx" --concat on --cores 1 | sed -n 's/.*: \([0-9]*\) layers after lowering/\1/p')
    if [ -n "$n_off" ] && [ "$n_on" = "$((n_off - 5))" ]; then ok
    else bad "space: $n_on layers with --concat on, $n_off off (want 5 fewer)"; fi
fi

finish
