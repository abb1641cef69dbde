#!/bin/sh
# 39-runtime-shapes.sh BUILD_DIR - inputs that shape an output, read at run
# time (issue 39): the node suite's cases of Reshape, Slice, Expand, Tile,
# the reductions, Pad, ConstantOfShape, Range, Resize, Squeeze and
# Unsqueeze built by
# `paleozoic build` with nothing bound (the model's declared shapes only),
# the program run on the case's inputs and each output checked against the
# case's (|got-ref| <= 1e-5 + 1e-3*|ref|, integers exactly). Every case
# builds and agrees: a refusal at build (exit 2, listed), a built program
# that fails or disagrees, or a pass count below the floor fails the part.
# Then run-time values a layer cannot take (a Reshape whose product
# differs, a repeated Slice axis, a reduction axis out of range, a negative
# size, a run-time shape that does not broadcast with a static operand)
# fail the program with exit 2 naming the layer and write no output, and
# PyTorch exports whose shapes come from an input
# (tests/e2e/runtime_shapes_torch.py) match PyTorch from one program on
# several value sets; `compile`'s C header names the values allocated at
# run time.
# Every 2nd node case (each is a program built by gcc: the part's cost),
# every 24th under a sanitizer; all with PZ_TEST_FULL=1. The 18 cases of
# Split's sizes, OneHot's depth and CenterCropPad's shape (issue 40) run
# all by default (every 3rd under a sanitizer), and hand-written models of
# those three with the value a graph input (tests/e2e/runtime_shapes_onnx.py)
# match ONNX Runtime 1.17 on several value sets, a bad value exiting 2
# naming the layer with nothing written; one of them has 70 outputs, given
# as 70 --output files to the built program and to `paleozoic run`; an If
# of a run-time condition whose branches differ in shape (batched_nms: an
# empty [0] or NMS's count, SelectBranch) and a Concat of 42 inputs after a
# Split of constant sizes, both on run-time shapes, are among them, and
# Mask R-CNN's mask head (Conv, ConvTranspose) on K of 8 regions picked by
# NonZero (K = 0, 1, several), also through `paleozoic run`, and a 3x3
# conv on Winograd (and the sparse kernels), a Conv1d and a
# ConvTranspose3d on the run's K (the profile names the kernel). With
# PZ_TEST_FULL=1 torchvision's ssdlite320, Faster R-CNN, Mask R-CNN and
# Keypoint R-CNN detectors too, two images each in `run` and a built
# program (~70 s each).
# Ends with `N passed, N failed`.
set -u
NAME=39-runtime-shapes
. "$(dirname "$0")/lib.sh"
part_init "$@"
NODE=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node
[ -d "$NODE" ] || skip_part "no ONNX node suite at $NODE"
command -v node >/dev/null || skip_part "needs node"
every=2
[ "$san" = 1 ] && every=24
[ "$full" = 1 ] && every=1

built=0 refused=0 k=0
: >"$T/refusals"
# node_case DIR: builds DIR's model unbound, runs it on the case's inputs
# and checks each output; 0 when it builds and agrees (a refusal counted)
node_case() {
    dir=$1 c=$(basename "$1")
    "$PZ" build "$dir/model.onnx" -o "$T/c.exe" >"$T/log" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q 'paleozoic: error: ' "$T/log"; then
        refused=$((refused + 1))
        printf '%s: %s\n' "$c" "$(grep 'paleozoic: error: ' "$T/log" | head -n 1 |
            sed 's/^paleozoic: error: //')" >>"$T/refusals"
        bad "$c: refused at build: $(grep 'paleozoic: error: ' "$T/log" | head -n 1)"
        return 1
    fi
    if [ "$rc" -ne 0 ]; then
        bad "$c: build exit $rc: $(tail -c 300 "$T/log")"
        return 1
    fi
    ins="" outs="" i=0
    while [ -f "$dir/test_data_set_0/input_$i.pb" ]; do
        ins="$ins --input $dir/test_data_set_0/input_$i.pb"
        i=$((i + 1))
    done
    i=0
    while [ -f "$dir/test_data_set_0/output_$i.pb" ]; do
        outs="$outs --output $T/o$i.pb"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    if ! "$T/c.exe" $ins $outs >"$T/log" 2>&1 || ! clean "$T/log"; then
        bad "$c: the built program failed: $(tail -c 300 "$T/log")"
        return 1
    fi
    i=0 pairs=""
    while [ -f "$dir/test_data_set_0/output_$i.pb" ]; do
        pairs="$pairs $T/o$i.pb $dir/test_data_set_0/output_$i.pb"
        i=$((i + 1))
    done
    # all outputs in one node start, the first that disagrees named
    # shellcheck disable=SC2086
    if ! node "$E2E/compare.js" --close 1e-3 1e-5 $pairs >"$T/cmp" 2>&1; then
        bad "$c: $(tail -n 1 "$T/cmp" | tail -c 300)"
        return 1
    fi
    ok "$c"
}
for dir in "$NODE"/test_reshape_* "$NODE"/test_slice* "$NODE"/test_expand* \
    "$NODE"/test_tile* "$NODE"/test_reduce_* "$NODE"/test_constant_pad* \
    "$NODE"/test_edge_pad* "$NODE"/test_reflect_pad* "$NODE"/test_wrap_pad* \
    "$NODE"/test_constantofshape* "$NODE"/test_range* "$NODE"/test_resize* \
    "$NODE"/test_squeeze* "$NODE"/test_unsqueeze*; do
    [ -f "$dir/model.onnx" ] || continue
    k=$((k + 1))
    [ $((k % every)) -eq 0 ] || continue
    node_case "$dir" && built=$((built + 1))
done
# Split's sizes, OneHot's depth, CenterCropPad's shape read at run time:
# every case (each the op's only way in), every 3rd under a sanitizer (2 of each op)
k=0 later=0
for dir in "$NODE"/test_split_variable_parts_* "$NODE"/test_split_zero_size_splits_* \
    "$NODE"/test_onehot_* "$NODE"/test_center_crop_pad_crop "$NODE"/test_center_crop_pad_pad \
    "$NODE"/test_center_crop_pad_crop_and_pad "$NODE"/test_center_crop_pad_crop_axes_* \
    "$NODE"/test_center_crop_pad_crop_negative_axes_hwc; do
    case $dir in *_expanded) continue ;; esac
    [ -f "$dir/model.onnx" ] || continue
    k=$((k + 1))
    [ "$san" = 1 ] && [ "$full" != 1 ] && [ $((k % 3)) -ne 0 ] && continue
    node_case "$dir" && later=$((later + 1))
done
echo "$NAME: Split, OneHot, CenterCropPad node cases built unbound: $later of $k run agree"
[ "$k" -ge 18 ] || bad "only $k Split, OneHot and CenterCropPad cases found (18 expected)"
echo "$NAME: node cases built without bound values: $built built and agree, $refused refused"
sed 's/^/  refused: /' "$T/refusals"
# the floor: what builds today (all cases; a sampled run, its share: every
# sampled case must build anyway, a refusal fails above)
floor=${PZ_RT_SHAPES_FLOOR:-218}   # the 4 Range_expanded (a Loop at run time) included
[ "$built" -lt $((floor / every)) ] && bad "only $built node cases built and agreed (floor $floor, every $every)"


# bad run-time values: exit 2 naming the layer, from a program that builds
# bad_value CASE INPUT_NO VALUES DTYPE PATTERN: CASE's program on its inputs
# with input INPUT_NO replaced by VALUES (a numpy vector of DTYPE)
bad_value() {
    c=$1 no=$2 vals=$3 dt=$4 pat=$5
    dir=$NODE/$c
    [ -f "$dir/model.onnx" ] || { skip_one "$c: not in the suite"; return; }
    # one program per case, reused by its bad values
    if [ ! -x "$T/b.$c.exe" ] && ! "$PZ" build "$dir/model.onnx" -o "$T/b.$c.exe" >"$T/log" 2>&1; then
        bad "$c: build failed: $(tail -c 300 "$T/log")"
        return
    fi
    "$PY" -c "import sys, numpy as np; from onnx import numpy_helper as h
open(sys.argv[1], 'wb').write(h.from_array(np.array($vals, dtype=np.$dt)).SerializeToString())" \
        "$T/bad.pb" || { bad "$c: cannot write the bad value"; return; }
    ins="" i=0
    while [ -f "$dir/test_data_set_0/input_$i.pb" ]; do
        f=$dir/test_data_set_0/input_$i.pb
        [ "$i" = "$no" ] && f=$T/bad.pb
        ins="$ins --input $f"
        i=$((i + 1))
    done
    rm -f "$T/o.pb"
    # shellcheck disable=SC2086
    refuse "$c with input $no = $vals" "layer \".*$pat" "$T/b.$c.exe" $ins --output "$T/o.pb"
    clean "$T/refuse.log" || bad "$c: sanitizer report: $(tail -c 300 "$T/refuse.log")"
    [ -e "$T/o.pb" ] && bad "$c with input $no = $vals: an output was written"
}
if [ "$have_py" = 1 ]; then
    bad_value test_reshape_reordered_all_dims 1 "[4, 4, 2]" int64 "elements"
    bad_value test_reshape_reordered_all_dims 1 "[-1, -1, 2]" int64 "two -1"
    bad_value test_reshape_reordered_all_dims 1 "[0, 0, 5]" int64 "elements"
    bad_value test_reshape_reordered_all_dims 1 "[24, 1, -3]" int64 "is -3"
    bad_value test_slice 3 "[0, 0]" int64 "repeated"
    bad_value test_slice 4 "[1, 0]" int64 "step is 0"
    bad_value test_slice 3 "[0, 7]" int64 "out of range"
    bad_value test_reduce_sum_keepdims_example 1 "[3]" int64 "out of range"
    bad_value test_reduce_mean_do_not_keepdims_example 1 "[-4]" int64 "out of range"
    bad_value test_squeeze 1 "[1]" int64 "only a dim of size 1"
    bad_value test_squeeze 1 "[4]" int64 "out of range"
    bad_value test_unsqueeze_two_axes 1 "[1, 1]" int64 "twice"
    bad_value test_unsqueeze_two_axes 1 "[1, 5]" int64 "out of range"
fi

# PyTorch exports: one program, several run-time values, PyTorch's outputs
if [ "$have_py" = 1 ] && "$PY" "$E2E/runtime_shapes_torch.py" "$T" >"$T/log" 2>&1; then
    [ -f "$T/cases.txt" ] || skip_one "PyTorch exports: no torch"
    while [ -f "$T/cases.txt" ] && read -r name nin nout nval; do
        if ! "$PZ" build "$T/$name.onnx" -o "$T/$name.exe" >"$T/log" 2>&1; then
            bad "$name: build failed: $(tail -c 300 "$T/log")"
            continue
        fi
        v=0
        while [ "$v" -lt "$nval" ]; do
            ins="" outs="" k=0
            while [ "$k" -lt "$nin" ]; do ins="$ins --input $T/$name.v$v.in$k.pb"; k=$((k + 1)); done
            k=0
            while [ "$k" -lt "$nout" ]; do outs="$outs --output $T/o$k.pb"; k=$((k + 1)); done
            # shellcheck disable=SC2086
            if ! "$T/$name.exe" $ins $outs >"$T/log" 2>&1; then
                bad "$name value set $v: the program failed: $(tail -c 300 "$T/log")"
            else
                k=0
                while [ "$k" -lt "$nout" ]; do
                    check "$name value set $v output $k" \
                        node "$E2E/compare.js" --close 1e-5 1e-6 "$T/o$k.pb" "$T/$name.v$v.ref$k.pb"
                    k=$((k + 1))
                done
            fi
            v=$((v + 1))
        done
    done <"$T/cases.txt"
    if [ -f "$T/reshape.exe" ]; then
        refuse "reshape with n = 5" 'layer ".*cannot be inferred' "$T/reshape.exe" --input "$T/reshape.v0.in0.pb" \
            --input "$T/reshape.bad.in1.pb" --input "$T/reshape.v0.in2.pb" --output "$T/o0.pb" \
            --output "$T/o1.pb"
    fi
    # outputs allocated at run time: a negative size or one past the host's
    # memory fails the program, exit 2 naming the layer, never a crash
    for c in expand:1 tile:1 arange:0 pad:1 interp:1 expand.huge:1; do
        name=${c%%:*} name=${name%.huge} k=${c#*:} bad=${c%%:*}
        [ -f "$T/$name.exe" ] || continue
        [ "$bad" = "$name" ] && badf=$T/$name.bad.in$k.pb || badf=$T/$bad.in$k.pb
        ins="" j=0
        while [ -f "$T/$name.v0.in$j.pb" ]; do
            f=$T/$name.v0.in$j.pb
            [ "$j" = "$k" ] && f=$badf
            ins="$ins --input $f"
            j=$((j + 1))
        done
        rm -f "$T/o0.pb"
        # shellcheck disable=SC2086
        refuse "$bad with a bad size" 'layer "' "$T/$name.exe" $ins --output "$T/o0.pb"
        clean "$T/refuse.log" || bad "$bad: sanitizer report: $(tail -c 300 "$T/refuse.log")"
        [ -e "$T/o0.pb" ] && bad "$bad with a bad size: an output was written"
    done
    grep -q "more than .* bytes" "$T/refuse.log" ||
        bad "expand.huge: no size named: $(tail -c 300 "$T/refuse.log")"
    # a run-time shape that does not broadcast with a static operand (the
    # static row of 4): exit 2 naming the Add, no output written
    for c in zeros:1 reshape_add:1,2; do
        name=${c%%:*} ks=,${c#*:},
        [ -f "$T/$name.exe" ] || continue
        ins="" j=0
        while [ -f "$T/$name.v0.in$j.pb" ]; do
            f=$T/$name.v0.in$j.pb
            case $ks in *,$j,*) f=$T/$name.bcast.in$j.pb ;; esac
            ins="$ins --input $f"
            j=$((j + 1))
        done
        rm -f "$T/o0.pb"
        # shellcheck disable=SC2086
        refuse "$name: a run-time shape that does not broadcast" \
            'layer "/Add" (BINARY): .*do not broadcast' "$T/$name.exe" $ins --output "$T/o0.pb"
        clean "$T/refuse.log" || bad "$name: sanitizer report: $(tail -c 300 "$T/refuse.log")"
        [ -e "$T/o0.pb" ] && bad "$name: a bad broadcast wrote an output"
    done
    # the generated C's header names the values allocated at run time
    for c in expand:Expand tile:Tile arange:Range arange:ConstantOfShape pad:Pad \
        interp:Resize zeros:ConstantOfShape; do
        name=${c%%:*} op=${c#*:}
        [ -f "$T/${name}_c/$name.c" ] ||
            "$PZ" compile "$T/$name.onnx" -o "$T/${name}_c" >"$T/log" 2>&1 ||
            { bad "$name: compile failed: $(tail -c 300 "$T/log")"; continue; }
        check "$name: the header says $op's output is allocated at run time" \
            grep -q "allocated at run time: value \".*\" of node \".*\" ($op)" "$T/${name}_c/$name.c"
    done
    # ... and the run-time Reshape's consumer as a dynamic region
    if "$PZ" compile "$T/reshape_add.onnx" -o "$T/reshape_add_c" >"$T/log" 2>&1; then
        check "reshape_add: the header names the Add's dynamic region" \
            grep -q 'dynamic region: node "/Add" (Add)' "$T/reshape_add_c/reshape_add.c"
    else
        bad "reshape_add: compile failed: $(tail -c 300 "$T/log")"
    fi
else
    bad "runtime_shapes_torch.py failed: $(tail -c 600 "$T/log")"
fi

# Hand-written ONNX (tests/e2e/runtime_shapes_onnx.py): Split's sizes,
# OneHot's depth and CenterCropPad's shape as graph inputs, one program on
# several value sets, each output equal to ONNX Runtime 1.17's on the same
# file; then a bad value: exit 2 naming the layer, no output written
O=$T/onnx
mkdir -p "$O"
if [ "$have_py" = 1 ] && [ "$have_ort" = 1 ] &&
    "$PY" "$E2E/runtime_shapes_onnx.py" "$O" >"$T/log" 2>&1; then
    while read -r name nin nout nval; do
        if ! "$PZ" build "$O/$name.onnx" -o "$O/$name.exe" >"$T/log" 2>&1; then
            bad "$name: build failed: $(tail -c 300 "$T/log")"
            continue
        fi
        v=0
        while [ "$v" -lt "$nval" ]; do
            ins="" pins="" outs="" refs="" k=0
            while [ "$k" -lt "$nin" ]; do
                ins="$ins $O/$name.v$v.in$k.pb" pins="$pins --input $O/$name.v$v.in$k.pb"
                k=$((k + 1))
            done
            k=0
            while [ "$k" -lt "$nout" ]; do
                outs="$outs --output $T/o$k.pb" refs="$refs $O/$name.v$v.ort$k.pb"
                k=$((k + 1))
            done
            # shellcheck disable=SC2086
            if ! node "$E2E/ort_run.js" "$O/$name.onnx" $ins -- $refs >"$T/log" 2>&1; then
                bad "$name value set $v: ONNX Runtime failed: $(tail -c 300 "$T/log")"
            elif ! "$O/$name.exe" $pins $outs >"$T/log" 2>&1 ||
                ! clean "$T/log"; then
                bad "$name value set $v: the program failed: $(tail -c 300 "$T/log")"
            else
                pairs="" k=0
                while [ "$k" -lt "$nout" ]; do
                    pairs="$pairs $T/o$k.pb $O/$name.v$v.ort$k.pb"
                    k=$((k + 1))
                done
                # convs (roiconv) sum in another order than ONNX Runtime;
                # Winograd's (roiwino) held to its bound's tenth, normalized
                tol="--close 1e-6 1e-6"
                [ "$name" = roiconv ] && tol="--close 1e-5 1e-5"
                [ "$name" = roiwino ] && tol="--rel 1e-5"
                # shellcheck disable=SC2086
                check "$name value set $v: $nout outputs equal to ONNX Runtime's" \
                    node "$E2E/compare.js" $tol $pairs
            fi
            v=$((v + 1))
        done
    done <"$O/cases.txt"
    # the mask head (roiconv) through `paleozoic run` too, at K = 3 and 8
    for v in 0 3; do
        [ -f "$O/roiconv.v$v.ort1.pb" ] || continue
        if "$PZ" run "$O/roiconv.onnx" --input "$O/roiconv.v$v.in0.pb" \
            --input "$O/roiconv.v$v.in1.pb" --output "$T/r0.pb" --output "$T/r1.pb" \
            >"$T/log" 2>&1; then
            check "paleozoic run: roiconv value set $v equal to ONNX Runtime's" \
                node "$E2E/compare.js" --close 1e-5 1e-5 "$T/r0.pb" "$O/roiconv.v$v.ort0.pb" \
                "$T/r1.pb" "$O/roiconv.v$v.ort1.pb"
        else
            bad "paleozoic run roiconv value set $v failed: $(tail -c 300 "$T/log")"
        fi
    done
    # the run's K images on Winograd, conv_frames and deconv_frames through
    # `paleozoic run` (K = 3, 0, 1): the profile's kernel column names the fast kernel
    # (not the reference), the outputs ONNX Runtime's; K = 3 under a sanitizer
    wino_sets="0 1 2" wino=direct
    [ "$san" = 1 ] && wino_sets=0
    # Winograd runs on AVX-512 alone; elsewhere the direct conv
    grep -q avx512f /proc/cpuinfo && [ "${PZ_ISA:-avx512}" = avx512 ] && wino=winograd
    for v in $wino_sets; do
        [ -f "$O/roiwino.v$v.ort2.pb" ] || continue
        if "$PZ" run "$O/roiwino.onnx" --input "$O/roiwino.v$v.in0.pb" \
            --input "$O/roiwino.v$v.in1.pb" --input "$O/roiwino.v$v.in2.pb" \
            --input "$O/roiwino.v$v.in3.pb" --profile --output "$T/r0.pb" --output "$T/r1.pb" \
            --output "$T/r2.pb" >"$T/log" 2>&1; then
            check "paleozoic run: roiwino value set $v: the 3x3 conv on $wino" \
                grep -q -E "^ +[0-9]+ CONV +Conv_4 .* $wino\$" "$T/log"
            check "paleozoic run: roiwino value set $v: the Conv1d on conv_frames" \
                grep -q -E '^ +[0-9]+ CONV +Conv_7 .* direct frames$' "$T/log"
            check "paleozoic run: roiwino value set $v: the ConvTranspose3d on deconv_frames" \
                grep -q -E '^ +[0-9]+ CONV_TRANSPOSE +ConvTranspose_9 .* phases frames$' "$T/log"
            check "paleozoic run: roiwino value set $v equal to ONNX Runtime's" \
                node "$E2E/compare.js" --rel 1e-5 "$T/r0.pb" "$O/roiwino.v$v.ort0.pb" \
                "$T/r1.pb" "$O/roiwino.v$v.ort1.pb" "$T/r2.pb" "$O/roiwino.v$v.ort2.pb"
        else
            bad "paleozoic run roiwino value set $v failed: $(tail -c 300 "$T/log")"
        fi
    done
    # the sparse kernels (--sparsity 0.5 prunes W; PZ_WINOGRAD=1 the sparse
    # Winograd on AVX-512, 0 the sparse direct conv) at K = 3 and 1, each
    # equal to the reference kernels' on the same pruned weights (PZ_ISA=ref)
    sparse_w=0 sparse_sets="0 2"
    [ "$wino" = winograd ] && sparse_w="1 0"
    [ "$san" = 1 ] && sparse_sets=0
    for v in $sparse_sets; do
        [ -f "$O/roiwino.v$v.in3.pb" ] || continue
        sins="--input $O/roiwino.v$v.in0.pb --input $O/roiwino.v$v.in1.pb"
        sins="$sins --input $O/roiwino.v$v.in2.pb --input $O/roiwino.v$v.in3.pb --sparsity 0.5"
        # shellcheck disable=SC2086
        if ! PZ_ISA=ref "$PZ" run "$O/roiwino.onnx" $sins --output "$T/s0.pb" \
            --output "$T/s1.pb" >"$T/log" 2>&1; then
            bad "roiwino value set $v: --sparsity 0.5 at PZ_ISA=ref failed: $(tail -c 300 "$T/log")"
            continue
        fi
        for w in $sparse_w; do
            k=sparse
            [ "$w" = 1 ] && k="sparse winograd"
            # shellcheck disable=SC2086
            if PZ_WINOGRAD=$w "$PZ" run "$O/roiwino.onnx" $sins --profile --output "$T/r0.pb" \
                --output "$T/r1.pb" >"$T/log" 2>&1; then
                check "roiwino value set $v, --sparsity 0.5: the 3x3 conv on $k" \
                    grep -q -E "^ +[0-9]+ CONV +Conv_4 .* $k\$" "$T/log"
                check "roiwino value set $v, --sparsity 0.5: $k equal to the reference" \
                    node "$E2E/compare.js" --rel 1e-5 "$T/r0.pb" "$T/s0.pb" "$T/r1.pb" "$T/s1.pb"
            else
                bad "roiwino value set $v, --sparsity 0.5 PZ_WINOGRAD=$w failed: $(tail -c 300 "$T/log")"
            fi
        done
    done
    # more than 64 outputs through `paleozoic run` (the built program had
    # its 70 above): each file written, equal to ONNX Runtime's
    if [ -f "$O/fan70.v1.ort69.pb" ]; then
        outs="" k=0
        while [ "$k" -lt 70 ]; do outs="$outs --output $T/r$k.pb"; k=$((k + 1)); done
        # shellcheck disable=SC2086
        if "$PZ" run "$O/fan70.onnx" --input "$O/fan70.v1.in0.pb" \
            --input "$O/fan70.v1.in1.pb" $outs >"$T/log" 2>&1; then
            pairs="" k=0
            while [ "$k" -lt 70 ]; do pairs="$pairs $T/r$k.pb $O/fan70.v1.ort$k.pb"; k=$((k + 1)); done
            # shellcheck disable=SC2086
            check "paleozoic run writes 70 --output files, equal to ONNX Runtime's" \
                node "$E2E/compare.js" --close 1e-6 1e-6 $pairs
        else
            bad "paleozoic run with 70 --output files failed: $(tail -c 300 "$T/log")"
        fi
        # shellcheck disable=SC2086
        refuse "71 --output files for 70 outputs" "70 outputs, 71 --output" "$PZ" run \
            "$O/fan70.onnx" --input "$O/fan70.v1.in0.pb" --input "$O/fan70.v1.in1.pb" \
            $outs --output "$T/r70.pb"
    fi
    # the If's output chosen at run time is planned at the larger bound
    # (NMS's 3 rows), and so is the ConstantOfShape(Shape) before the NMS
    # (torch's full_like): nothing there is allocated at run time
    if [ -f "$O/ifnms.exe" ]; then
        if "$PZ" compile "$O/ifnms.onnx" -o "$T/ifnms_c" >"$T/log" 2>&1; then
            check "ifnms: the If's output \"k\" is planned at a bound" \
                grep -q 'output: *"k" int64 \[3\], a bound' "$T/ifnms_c/ifnms.c"
        else
            bad "ifnms: compile failed: $(tail -c 300 "$T/log")"
        fi
    fi
    # CASE:INPUT:FILE:PATTERN, FILE's value in place of input INPUT
    for c in "split:1:split.bad:add up to more" "split:1:split2.bad:negative" \
        "onehot:1:onehot.bad:depth is 0" "crop:1:crop.bad:negative"; do
        name=${c%%:*} r=${c#*:} k=${r%%:*} r=${r#*:} f=${r%%:*} pat=${r#*:}
        [ -f "$O/$name.exe" ] || continue
        ins="" j=0
        while [ -f "$O/$name.v0.in$j.pb" ]; do
            x=$O/$name.v0.in$j.pb
            [ "$j" = "$k" ] && x=$O/$f.in$k.pb
            ins="$ins --input $x"
            j=$((j + 1))
        done
        outs="" j=0
        while [ -f "$O/$name.v0.ort$j.pb" ]; do outs="$outs --output $T/o$j.pb"; j=$((j + 1)); done
        rm -f "$T"/o*.pb
        # shellcheck disable=SC2086
        refuse "$f: exit 2 naming the layer" "layer \".*$pat" "$O/$name.exe" $ins $outs
        clean "$T/refuse.log" || bad "$f: sanitizer report: $(tail -c 300 "$T/refuse.log")"
        ls "$T"/o*.pb >/dev/null 2>&1 && bad "$f: an output was written"
    done
elif [ "$have_py" = 1 ] && [ "$have_ort" = 1 ]; then
    bad "runtime_shapes_onnx.py failed: $(tail -c 600 "$T/log")"
else
    skip_one "hand-written ONNX against ONNX Runtime: needs onnx, numpy and onnxruntime-node"
fi

# PZ_TEST_FULL=1: torchvision's ssdlite320_mobilenet_v3_large,
# fasterrcnn_mobilenet_v3_large_320_fpn, maskrcnn_resnet50_fpn and
# keypointrcnn_resnet50_fpn exported by PyTorch at opset 17
# (tests/e2e/detector_export.py, ~20-40 s each; the R-CNNs' weights scaled
# to give well-separated boxes): boxes, scores, labels (and the pasted
# masks, the keypoints and their scores) of two images from `paleozoic run`
# and from one built program equal to ONNX Runtime 1.17's, and not empty
# (the post-processing ran on K > 0 rows); the three R-CNNs' also equal to
# PyTorch's own outputs, Mask and Keypoint R-CNN's with K >= 3 boxes of
# scores 1e-4 apart
for det in ssdlite fasterrcnn maskrcnn keypointrcnn; do
    [ "$full" = 1 ] && [ "$have_py" = 1 ] && [ "$have_ort" = 1 ] || break
    case $det in maskrcnn) nout=4 ;; keypointrcnn) nout=5 ;; *) nout=3 ;; esac
    min=1 gap=0 torch_ref=
    case $det in
    fasterrcnn) torch_ref=1 ;;
    maskrcnn | keypointrcnn) min=3 gap=1e-4 torch_ref=1 ;;
    esac
    if ! "$PY" -c 'import torch, torchvision' 2>/dev/null; then
        skip_one "$det: needs torch and torchvision"
        continue
    elif ! DET_TORCH=$torch_ref "$PY" "$E2E/detector_export.py" "$T" "$det" >"$T/log" 2>&1; then
        bad "detector_export.py $det failed: $(tail -c 600 "$T/log")"
        continue
    elif ! "$PZ" build "$T/$det.onnx" -o "$T/$det.exe" >"$T/log" 2>&1; then
        bad "$det: build failed: $(tail -c 300 "$T/log")"
        continue
    fi
    ort="" pzo="" pairs="" torch=""
    i=0
    while [ $i -lt $nout ]; do
        ort="$ort $T/d.ort$i.pb" pzo="$pzo --output $T/d.pz$i.pb"
        pairs="$pairs $T/d.pz$i.pb $T/d.ort$i.pb"
        i=$((i + 1))
    done
    for img in in0 in0_b; do
        sfx=${img#in0}
        # shellcheck disable=SC2086
        if ! node "$E2E/ort_run.js" "$T/$det.onnx" "$T/$det.$img.pb" -- $ort >"$T/log" 2>&1; then
            bad "$det $img: ONNX Runtime failed: $(tail -c 300 "$T/log")"
            continue
        fi
        check "$det $img: K >= $min boxes, scores $gap apart (ONNX Runtime)" node -e "
            const {readTensor} = require('$E2E/tensorproto.js');
            const s = readTensor('$T/d.ort1.pb').data;
            for (let k = 1; k < s.length; k++)
                if (s[k - 1] - s[k] < $gap) { console.log('near tie', s[k - 1], s[k]); process.exit(1); }
            if (!(s.length >= $min)) { console.log(s.length, 'boxes'); process.exit(1); }"
        if [ -n "$torch_ref" ]; then
            torch="" i=0
            while [ $i -lt $nout ]; do
                torch="$torch $T/$det.torch$sfx$i.pb $T/d.ort$i.pb" i=$((i + 1))
            done
            # shellcheck disable=SC2086
            check "$det $img: ONNX Runtime's equal to PyTorch's" \
                node "$E2E/compare.js" --rel 1e-4 $torch
        fi
        for how in run exe; do
            [ $how = run ] && set -- "$PZ" run "$T/$det.onnx" || set -- "$T/$det.exe"
            # shellcheck disable=SC2086
            if ! "$@" --input "$T/$det.$img.pb" $pzo >"$T/log" 2>&1; then
                bad "$det $img: $how failed: $(tail -c 300 "$T/log")"
            else
                # shellcheck disable=SC2086
                check "$det $img ($how): equal to ONNX Runtime's" \
                    node "$E2E/compare.js" --close 1e-4 1e-4 $pairs
            fi
        done
    done
done

finish
