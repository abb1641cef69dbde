#!/bin/sh
# 43-views.sh BUILD_DIR MODELDIR - views instead of copies (issue 43, item 5).
#
# Reshape, Flatten, Squeeze, Unsqueeze, Identity and Dropout of an
# intermediate, and a Transpose that moves only dims of 1, are no layer: their output is a view of their input's bytes
# (pz_net_view). Checked here:
# and a Concat whose parts' producers can write into their slice of its
# output is done in place (rt/inplace.c: no copy, no layer in the profile).
#   1. `run --profile` of ResNet-18, AlexNet, MobileNetV2 and SqueezeNet 1.0
#      (exported here with torchvision, seeded weights) shows no COPY layer,
#      and `inspect --strategy none` counts no Flatten/Reshape layer;
#      SqueezeNet's 8 Concats are all in place, no CONCAT layer left (also
#      in one fused block on 2 cores, bitwise the unfused run).
#      DenseNet-121's 62 Concats all in place; ShuffleNetV2's 16 Concats and
#      13 pass-on Gathers read through by its channel gathers, no CONCAT or
#      SLICE layer left, 16 GATHERs with PZ_GATHER_CONV=0; by default 14 of
#      them gathered by the conv that reads them (2 GATHERs left), bitwise
#      equal at 1, 2 threads and PZ_ISA=scalar (shuffle_through too);
#      `inspect --strategy fixed-mp --threads 1` says so too (as many
#      layers run as the profile lists, those counts, each one listed).
#   2. SqueezeNet, DenseNet, ShuffleNetV2 and the edge-case models of views_models.py:
#      `run` at --threads 1 and 2 against ONNX Runtime (max|err|/max|ref| <=
#      1e-4), the built program bitwise equal to `run` at both thread counts,
#      `--emit raw` against ONNX Runtime, and the chain model fused in one
#      block on 2 cores bitwise equal to the unfused run; the profile of
#      concat_inplace: 2 Concats in place, the 2 that cannot be copy.
#   3. The zoo's six networks (`paleozoic zoo`): no COPY, CONCAT, SPLIT,
#      RESHAPE, VIEW or TRANSPOSE layer in `run --profile` (layer by layer,
#      dlfusion, --batch 2, int8) nor in ResNet-18's built program's profile.
#   4. The zoo's BERT-base encoder (sequence 16): its attention layers read
#      Q, K and V in place from the QKV GEMM's output (passes/qkv_slices.c):
#      no SLICE, SPLIT or COPY layer of them in `run --profile`, at 1
#      thread and with PZ_ISA=scalar, 12 ATTENTION layers; the residual Adds
#      are in the GEMMs' epilogues (passes/epilogue.c): 3 BINARY layers
#      left (embeddings, mask), not 27; `inspect --strategy none` counts
#      both (24 residual epilogues, 12 attention layers in place); the
#      output against ONNX Runtime's (max|err|/max|ref| <= 1e-4).
set -u
NAME=43-views
. "$(dirname "$0")/lib.sh"
part_init "$@"

# ---- 1. no copy layer in the profiles ----------------------------------------
no_copy() {   # NAME MODEL [INPUT]
    inarg=""
    [ -n "${3:-}" ] && inarg="--input $3"
    if ! "$PZ" run "$2" $inarg --profile --threads 1 >"$T/prof" 2>&1; then
        bad "$1: run --profile failed: $(tail -c 300 "$T/prof")"; return
    fi
    if grep -q -E '^ +[0-9]+ COPY ' "$T/prof"; then
        bad "$1: COPY layers in the profile: $(grep -E '^ +[0-9]+ COPY ' "$T/prof" | head -3)"
    else
        ok "$1: no COPY layer in the profile ($(grep -c -E '^ +[0-9]+ [A-Z_0-9]+ ' "$T/prof") layers)"
    fi
    "$PZ" inspect "$2" --strategy none --json >"$T/insp.json" 2>&1 &&
    "$PY" - "$T/insp.json" >"$T/log" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ops = [l["op"] for b in d["blocks"] for l in b["layers"]]
bad = [o for o in ops if o in ("Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout")]
assert not bad, "inspect counts view layers: %s" % bad
PYEOF
    check "$1: inspect counts no view layer" test $? -eq 0
}
for n in resnet18 alexnet mobilenet_v2; do
    if [ -f "$M/$n.onnx" ]; then no_copy "$n" "$M/$n.onnx" "$M/$n.input.pb"
    else bad "$n: $M/$n.onnx missing (tests/models.sh exports it)"; fi
done

# the Concat net, with seeded weights: its 8 Concats (channels of conv
# outputs, whole 16-channel blocks) all in place
NETS=""
if "$PY" "$ROOT/tools/export_torchvision.py" "$T" squeezenet1_0 >"$T/log" 2>&1; then
    NETS="squeezenet1_0"
    for n in $NETS; do no_copy "$n" "$T/$n.onnx" "$T/$n.input.pb"; done
    check "squeezenet1_0: no CONCAT layer in the profile" sh -c "! grep -q -E '^ +[0-9]+ CONCAT ' '$T/prof'"
    check "squeezenet1_0: 8 concats in place" grep -q ', 8 concats in place' "$T/prof"
else
    bad "torchvision export failed: $(tail -c 300 "$T/log")"
fi

# DenseNet-121: a dense block's concats are prefixes of its last one, so all
# 62 are in place (one buffer per block that each layer appends to, the
# memory-efficient DenseNet). ShuffleNetV2: its 16 concats are read through by
# the channel gathers after them (the shuffle, and the split folded into it by
# the graph passes), and so are the 13 gathers of the half each unit passes
# on: no CONCAT or SLICE layer is left, and 16 GATHER layers (the half each
# unit's branch convolves, and each stage's last shuffle) move the channels
# inspect_runs NAME MODEL WANT: `inspect --strategy fixed-mp --threads 1` (the
# plan `run --threads 1` makes) says as many layers run as the profile in
# $T/prof lists, and the counts WANT of the layers that do not run
inspect_runs() {
    ran=$(sed -n '1s/.* ms, \([0-9]*\) layers in .*/\1/p' "$T/prof")
    if ! "$PZ" inspect "$2" --strategy fixed-mp --threads 1 >"$T/insp" 2>&1; then
        bad "$1: inspect failed: $(tail -c 300 "$T/insp")"; return
    fi
    line=$(grep '^runtime: ' "$T/insp")
    case "$line" in
    "runtime: $ran of "*" layers run; $3") ok "$1: inspect: $line" ;;
    *) bad "$1: inspect says '$line', want $ran layers run and '$3'" ;;
    esac
}
if "$PY" "$ROOT/tools/export_torchvision.py" "$T" densenet121 shufflenet_v2_x1_0 >"$T/log" 2>&1; then
    NETS="$NETS densenet121 shufflenet_v2_x1_0"
    no_copy densenet121 "$T/densenet121.onnx" "$T/densenet121.input.pb"
    inspect_runs densenet121 "$T/densenet121.onnx" \
        "62 concats in place, 0 splits in place, 0 concats and 0 gathers not run (read through)"
    check "densenet121: inspect lists the 62 concats in place" \
        test "$(grep -c -E '^  layer [0-9]+ Concat .*: in place$' "$T/insp")" -eq 62
    check "densenet121: no CONCAT layer in the profile" sh -c "! grep -q -E '^ +[0-9]+ CONCAT ' '$T/prof'"
    check "densenet121: 62 concats in place" grep -q ', 62 concats in place' "$T/prof"
    # with PZ_GATHER_CONV=0 the 13 gathers of the half each unit's branch
    # convolves run as layers; by default each of those convs gathers its
    # input itself (rt/inplace.c gather_conv), and so does conv5 the last
    # stage's shuffle: 27 gathers do not run, 2 GATHER layers are left (stage
    # 2's and 3's last shuffle, which two convs of the next stage read)
    for gc in 0 1; do
        if ! PZ_GATHER_CONV=$gc "$PZ" run "$T/shufflenet_v2_x1_0.onnx" --profile --threads 1 \
            --input "$T/shufflenet_v2_x1_0.input.pb" >"$T/prof" 2>&1; then
            bad "shufflenet_v2_x1_0 PZ_GATHER_CONV=$gc: run --profile failed: $(tail -c 300 "$T/prof")"
            continue
        fi
        case $gc in 0) ng=13 nl=16 ;; *) ng=27 nl=2 ;; esac
        check "shufflenet_v2_x1_0 PZ_GATHER_CONV=$gc: no CONCAT, SLICE, SPLIT or TRANSPOSE layer" \
            sh -c "! grep -q -E '^ +[0-9]+ (CONCAT|SLICE|SPLIT|TRANSPOSE|RESHAPE|COPY) ' '$T/prof'"
        check "shufflenet_v2_x1_0 PZ_GATHER_CONV=$gc: 16 concats, $ng gathers read through" \
            grep -q ", 16 concats read through by gathers (not listed), $ng gathers read through" "$T/prof"
        check "shufflenet_v2_x1_0 PZ_GATHER_CONV=$gc: $nl GATHER layers left" \
            test "$(grep -c -E '^ +[0-9]+ GATHER ' "$T/prof")" -eq $nl
    done
    inspect_runs shufflenet_v2_x1_0 "$T/shufflenet_v2_x1_0.onnx" \
        "0 concats in place, 0 splits in place, 16 concats and 27 gathers not run (read through)"
    check "shufflenet_v2_x1_0: inspect lists the 43 layers not run" \
        test "$(grep -c -E '^  layer [0-9]+ .*: not run \(read through\)$' "$T/insp")" -eq 43
else
    bad "torchvision export of densenet121, shufflenet_v2_x1_0 failed: $(tail -c 300 "$T/log")"
fi

# ---- 2. the edge cases, and the exported nets, against ORT and bitwise --------
if ! "$PY" "$ROOT/tests/parts/views_models.py" "$T" >"$T/log" 2>&1; then
    bad "views_models.py failed: $(tail -c 300 "$T/log")"
fi
for n in $NETS input_output concat_twice two_readers chain concat_inplace transpose_view shuffle_through; do
    [ -f "$T/$n.onnx" ] || continue
    in="$T/$n.in.pb"
    [ -f "$in" ] || in="$T/$n.input.pb"
    nout=$("$PY" -c 'import onnx, sys; print(len(onnx.load(sys.argv[1], load_external_data=False).graph.output))' "$T/$n.onnx")
    outs() { k=0; while [ $k -lt "$nout" ]; do printf ' --output %s_%d.pb' "$1" $k; k=$((k + 1)); done; }
    if [ "$have_ort" = 1 ]; then
        ref=""
        k=0; while [ $k -lt "$nout" ]; do ref="$ref $T/$n.ort_$k.pb"; k=$((k + 1)); done
        node "$E2E/ort_run.js" "$T/$n.onnx" "$in" -- $ref 2>"$T/log" || bad "$n: ORT failed: $(cat "$T/log")"
    fi
    if ! "$PZ" build "$T/$n.onnx" -o "$T/$n.bin" --threads 2 >"$T/log" 2>&1; then
        bad "$n: build failed: $(tail -c 300 "$T/log")"; continue
    fi
    for th in 1 2; do
        if ! "$PZ" run "$T/$n.onnx" --input "$in" $(outs "$T/$n.run$th") --threads $th >"$T/log" 2>&1 ||
           ! "$T/$n.bin" --input "$in" $(outs "$T/$n.bin$th") --threads $th >"$T/log" 2>&1; then
            bad "$n --threads $th: run or the built program failed: $(tail -c 300 "$T/log")"; continue
        fi
        k=0
        while [ $k -lt "$nout" ]; do
            [ "$have_ort" = 1 ] && check "$n output $k --threads $th vs ORT" cmp_rel "$T/$n.run${th}_$k.pb" "$T/$n.ort_$k.pb"
            check "$n output $k --threads $th: build bitwise = run" cmp_bit "$T/$n.bin${th}_$k.pb" "$T/$n.run${th}_$k.pb"
            k=$((k + 1))
        done
    done
done
# the convs that gather their input themselves (PZ_GATHER_CONV=1, the
# default) bitwise equal to the GATHER layers run (PZ_GATHER_CONV=0), at 1
# and 2 threads, and at PZ_ISA=scalar (the twins of the gather and the conv)
for n in shufflenet_v2_x1_0 shuffle_through; do
    [ -f "$T/$n.run1_0.pb" ] || continue
    in="$T/$n.in.pb"
    [ -f "$in" ] || in="$T/$n.input.pb"
    for w in 1 2 scalar; do
        th=$w pre=""
        [ "$w" = scalar ] && th=1 pre="PZ_ISA=scalar"
        [ "$w.$n" = scalar.shufflenet_v2_x1_0 ] && continue   # the small model covers it
        [ "$san.$w.$n" = 1.2.shufflenet_v2_x1_0 ] && continue   # a sanitizer's time: 1 thread
        for gc in 0 1; do
            # shellcheck disable=SC2086  # $pre: none (the CPU's best ISA) or PZ_ISA=scalar
            env $pre PZ_GATHER_CONV=$gc "$PZ" run "$T/$n.onnx" --input "$in" --threads $th \
                --output "$T/$n.gc$gc.pb" >"$T/log" 2>&1 || bad "$n PZ_GATHER_CONV=$gc ($w): run failed: $(tail -c 300 "$T/log")"
        done
        check "$n ($w): convs gathering their input bitwise = GATHER layers" cmp_bit "$T/$n.gc1.pb" "$T/$n.gc0.pb"
        [ "$w" = scalar ] || check "$n --threads $w: PZ_GATHER_CONV=0 bitwise = run" cmp_bit "$T/$n.gc0.pb" "$T/$n.run${w}_0.pb"
    done
done
# SqueezeNet in one fused block (fuse-all) on 2 cores: its 8 Concats in place there too (their
# parts are whole tensors: rt/inplace.c), bitwise the unfused run
if [ -n "$NETS" ]; then
    "$PZ" run "$T/squeezenet1_0.onnx" --input "$T/squeezenet1_0.input.pb" --threads 2 \
        --strategy fuse-all --profile --output "$T/sq.fa.pb" >"$T/prof" 2>&1
    check "squeezenet1_0 fuse-all: 8 concats in place, no CONCAT layer" \
        sh -c "grep -q ', 8 concats in place' '$T/prof' && ! grep -q -E '^ +[0-9]+ CONCAT ' '$T/prof'"
    check "squeezenet1_0 fuse-all: bitwise the unfused run" cmp_bit "$T/sq.fa.pb" "$T/squeezenet1_0.run2_0.pb"
fi
# concat_inplace: the channel Concat and the Concat of it in place; the one
# on the row axis and the one of 8 + 16 channels copy
"$PZ" run "$T/concat_inplace.onnx" --input "$T/concat_inplace.in.pb" --profile >"$T/prof" 2>&1
check "concat_inplace: 2 concats in place" grep -q ', 2 concats in place' "$T/prof"
check "concat_inplace: 2 CONCAT layers copy" test "$(grep -c -E '^ +[0-9]+ CONCAT ' "$T/prof")" -eq 2
# shuffle_through: C2, C3 and C4 read through, C1 (read by a Relu too)
# copies; the pass-on gather P3 read through, P2 (a graph output) runs; by
# default the convs of Q2, Q3 and S4 (one reader each) and Q1's 3x3 conv
# gather their inputs themselves: 4 more gathers not run, 2 GATHERs left
for gc in 0 1; do
    PZ_GATHER_CONV=$gc "$PZ" run "$T/shuffle_through.onnx" --input "$T/shuffle_through.in.pb" \
        --profile >"$T/prof" 2>&1
    case $gc in 0) ng=1 nl=6 ;; *) ng=5 nl=2 ;; esac
    check "shuffle_through PZ_GATHER_CONV=$gc: 3 concats read through, $ng gathers" \
        grep -q ", 3 concats read through by gathers (not listed), $ng gathers read through" "$T/prof"
    check "shuffle_through PZ_GATHER_CONV=$gc: one CONCAT layer (C1), no SLICE, $nl GATHERs" sh -c \
        "test \$(grep -c -E '^ +[0-9]+ CONCAT ' '$T/prof') -eq 1 && ! grep -q -E '^ +[0-9]+ SLICE ' '$T/prof' &&
         test \$(grep -c -E '^ +[0-9]+ GATHER ' '$T/prof') -eq $nl"
done
# transpose_view: the two Transposes of dims of 1 are views, the third a layer
"$PZ" run "$T/transpose_view.onnx" --input "$T/transpose_view.in.pb" --profile >"$T/prof" 2>&1
check "transpose_view: one TRANSPOSE layer left of 3" test "$(grep -c -E '^ +[0-9]+ TRANSPOSE ' "$T/prof")" -eq 1
# --emit raw declares views with pz_raw_tensor_view
n=chain
if "$PZ" build "$T/$n.onnx" --emit raw -o "$T/$n.raw" --threads 2 >"$T/log" 2>&1 &&
   "$T/$n.raw" --input "$T/$n.in.pb" --output "$T/$n.raw_0.pb" --output "$T/$n.raw_1.pb" >"$T/log" 2>&1; then
    [ "$have_ort" = 1 ] && check "$n --emit raw output 0 vs ORT" cmp_rel "$T/$n.raw_0.pb" "$T/$n.ort_0.pb"
    [ "$have_ort" = 1 ] && check "$n --emit raw output 1 vs ORT" cmp_rel "$T/$n.raw_1.pb" "$T/$n.ort_1.pb"
else
    bad "$n --emit raw: build or run failed: $(tail -c 300 "$T/log")"
fi
# the generated C names its views
"$PZ" compile "$T/$n.onnx" -o "$T/$n.src" --name chain >"$T/log" 2>&1
check "$n: the generated C declares views with pz_net_view" grep -q 'pz_net_view(net, "F", t\[' "$T/$n.src/chain.c"
check "$n: the generated C has no COPY layer" sh -c "! grep -q 'PZ_OP_COPY\|, COPY,' '$T/$n.src/chain.c'"
# fused: every layer in one block on 2 cores, bitwise equal to the unfused run
nl=$("$PZ" inspect "$T/$n.onnx" --strategy none --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["layers"])')
printf '{"layers": %s, "blocks": [{"first": 0, "count": %s, "mp": 2}]}\n' "$nl" "$nl" >"$T/all.json"
if "$PZ" run "$T/$n.onnx" --input "$T/$n.in.pb" --schedule "$T/all.json" --threads 2 \
    --output "$T/$n.fused_0.pb" --output "$T/$n.fused_1.pb" >"$T/log" 2>&1; then
    check "$n fused in one block: output 0 bitwise = unfused" cmp_bit "$T/$n.fused_0.pb" "$T/$n.run2_0.pb"
    check "$n fused in one block: output 1 bitwise = unfused" cmp_bit "$T/$n.fused_1.pb" "$T/$n.run2_1.pb"
else
    bad "$n fused: run failed: $(tail -c 300 "$T/log")"
fi

# ---- 3. the zoo's six networks (issue 43: "no copy layer for Flatten, Reshape or Concat left in
# the six networks' profiles"): no layer that only moves bytes (COPY, CONCAT, SPLIT, RESHAPE,
# VIEW, TRANSPOSE) in `run --profile`, layer by layer, in fused blocks (dlfusion), at --batch 2
# and in int8; nor in the built program's profile. Under a sanitizer two of the six, one way.
# (the big three, ResNet-50 and the VGGs, layer by layer and fused only: the others cover the
# batch and int8 lowering of the same Flatten)
ZOO="resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"
if [ "$san" = 1 ] && [ "${PZ_TEST_FULL:-0}" != 1 ]; then ZOO="resnet18"; fi   # the built program below reads it
MOVERS='^ +[0-9]+ (COPY|CONCAT|SPLIT|RESHAPE|VIEW|TRANSPOSE) '
for n in $ZOO; do
    if ! "$PZ" zoo "$n" -o "$T/z_$n.onnx" >"$T/log" 2>&1; then
        bad "zoo $n: $(tail -c 300 "$T/log")"; continue
    fi
    case "$san.$n" in
        1.*) ways="plain" ;; *.resnet50 | *.vgg*) ways="plain dlfusion" ;;
        *) ways="plain dlfusion batch2 int8" ;;
    esac
    for w in $ways; do
        case $w in
            plain) a="" ;; dlfusion) a="--strategy dlfusion" ;; batch2) a="--batch 2" ;;
            int8) a="--precision int8" ;;
        esac
        # shellcheck disable=SC2086  # $a is words
        if "$PZ" run "$T/z_$n.onnx" --threads 1 --profile $a >"$T/prof" 2>&1; then
            nl=$(grep -c -E '^ +[0-9]+ [A-Z_0-9]+ ' "$T/prof")
            if [ "$nl" -gt 0 ] && ! grep -q -E "$MOVERS" "$T/prof"; then ok
            else bad "zoo $n ($w): $nl layers, copies among them: $(grep -E "$MOVERS" "$T/prof" | head -3)"; fi
        else
            bad "zoo $n ($w): run --profile failed: $(tail -c 300 "$T/prof")"
        fi
    done
done
n=resnet18
if "$PZ" build "$T/z_$n.onnx" -o "$T/z_$n.bin" --threads 1 >"$T/log" 2>&1 &&
    "$T/z_$n.bin" --threads 1 --profile >"$T/prof" 2>&1; then
    nl=$(grep -c -E '^ +[0-9]+ [A-Z_0-9]+ ' "$T/prof")
    if [ "$nl" -gt 0 ] && ! grep -q -E "$MOVERS" "$T/prof"; then ok
    else bad "zoo $n built program: $nl layers, copies among them: $(grep -E "$MOVERS" "$T/prof" | head -3)"; fi
else
    bad "zoo $n: build or the built program's --profile failed: $(tail -c 300 "$T/log") $(tail -c 300 "$T/prof" 2>/dev/null)"
fi

# ---- 4. BERT's Q, K, V read in place from the QKV GEMM -------------------------
n=bert_base
if ! "$PY" -c 'import onnx, numpy' 2>/dev/null || ! command -v node >/dev/null; then
    skip_one "zoo $n: needs $PY with onnx and numpy, and node"
elif ! "$PZ" zoo "$n" -o "$T/z_$n.onnx" >"$T/log" 2>&1; then
    bad "zoo $n: $(tail -c 300 "$T/log")"
else
    "$PY" - "$T/z_$n" <<'EOF'
import sys
import numpy as np
from onnx import numpy_helper
ids = (np.arange(16, dtype=np.int64) * 7919 % 30522).reshape(1, 16)
mask = np.ones((1, 16), np.int64)
mask[0, 12:] = 0   # padding: the mask matters
for i, x in enumerate((ids, mask)):
    open("%s.in%d.pb" % (sys.argv[1], i), "wb").write(numpy_helper.from_array(x).SerializeToString())
EOF
    zin="$T/z_$n.in0.pb $T/z_$n.in1.pb"
    # the mask input's Unsqueeze stays a COPY (a view of a graph input is copied)
    QKV_COPIES='^ +[0-9]+ (SLICE|SPLIT) |^ +[0-9]+ COPY +[^ ]*self_attn'
    # shellcheck disable=SC2086  # $zin: file names without spaces (mktemp)
    (cd "$ROOT" && node tests/e2e/ort_run.js "$T/z_$n.onnx" $zin -- "$T/z_$n.ort.pb") >"$T/log" 2>&1 ||
        bad "zoo $n: ONNX Runtime failed: $(tail -c 300 "$T/log")"
    if "$PZ" inspect "$T/z_$n.onnx" --input-shape ids=1,16 --input-shape mask=1,16 \
        --strategy none >"$T/insp" 2>&1 &&
        grep -q '^residual epilogues: 24 GEMM layers' "$T/insp" &&
        grep -q '^qkv in place: 12 attention layers' "$T/insp"; then
        ok "zoo $n: inspect shows 24 residual epilogues and 12 attention layers reading Q, K, V in place"
    else
        bad "zoo $n: inspect: $(grep -E '^(residual|qkv)' "$T/insp" | tr '\n' ' ') $(tail -c 200 "$T/insp")"
    fi
    for w in t1 scalar; do
        pre=""
        [ "$w" = scalar ] && pre="PZ_ISA=scalar"
        # shellcheck disable=SC2086
        if env $pre "$PZ" run "$T/z_$n.onnx" --input "$T/z_$n.in0.pb" --input "$T/z_$n.in1.pb" \
            --output "$T/z_$n.$w.pb" --threads 1 --profile >"$T/prof" 2>&1; then
            na=$(grep -c -E '^ +[0-9]+ ATTENTION ' "$T/prof")
            nb=$(grep -c -E '^ +[0-9]+ BINARY ' "$T/prof")
            if [ "$na" = 12 ] && ! grep -q -E "$QKV_COPIES" "$T/prof"; then
                ok "zoo $n ($w): 12 attention layers, no SLICE, SPLIT or COPY of Q, K, V"
            else
                bad "zoo $n ($w): $na ATTENTION layers; copies: $(grep -E "$QKV_COPIES" "$T/prof" | head -3)"
            fi
            if [ "$nb" = 3 ]; then ok "zoo $n ($w): the 24 residual Adds in the GEMMs' epilogues"
            else bad "zoo $n ($w): $nb BINARY layers, want 3 (embeddings and mask only)"; fi
            check "zoo $n ($w): vs ONNX Runtime <= 1e-4" \
                node "$E2E/compare.js" --rel 1e-4 "$T/z_$n.$w.pb" "$T/z_$n.ort.pb"
        else
            bad "zoo $n ($w): run --profile failed: $(tail -c 300 "$T/prof")"
        fi
    done
fi

finish
